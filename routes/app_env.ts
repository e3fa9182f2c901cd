/** @module The Hono environment shared by every router, and the hook that shapes validation errors. */
import type { Context } from "hono";
import type { ZodError } from "zod";
import type { Principal } from "../src/domain/mod.ts";
import { errorBody } from "./errors.ts";
import type { MatchedOperation } from "./operation_rule.ts";

/** Variables set by the root middleware (principal and operation by routes/access.ts). */
export type AppEnv = {
  Variables: {
    requestId: string;
    /** Who is calling; on /v1 routes always set. */
    principal: Principal;
    /** The /v1 operation the request matched, or null (no such route). */
    operation: MatchedOperation | null;
  };
};

/** Turns a zod validation failure into the 400 `invalid_request` body, listing each issue. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target: string },
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  const issues = result.error.issues.map((i) => ({
    path: i.path.map(String).join("."),
    code: i.code,
    message: i.message,
  }));
  const first = issues[0];
  const where = first?.path ? ` at "${first.path}"` : "";
  // The item of a list the first problem is in (e.g. observation 3), for clients to point at.
  const index = result.error.issues[0]?.path.find((p) => typeof p === "number");
  return c.json(
    errorBody(
      "invalid_request",
      `Invalid ${result.target}${where}: ${first?.message ?? "does not match the schema"}`,
      index === undefined
        ? { target: result.target, issues }
        : { target: result.target, index, issues },
    ),
    400,
  );
}
