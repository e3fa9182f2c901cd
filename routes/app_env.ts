/** @module The Hono environment shared by every router, and the hook that shapes validation errors. */
import type { Context } from "hono";
import type { ZodError } from "zod";
import { errorBody } from "./errors.ts";

/** Variables set by the root middleware. */
export type AppEnv = { Variables: { requestId: string } };

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
  return c.json(
    errorBody(
      "invalid_request",
      `Invalid ${result.target}${where}: ${first?.message ?? "does not match the schema"}`,
      { target: result.target, issues },
    ),
    400,
  );
}
