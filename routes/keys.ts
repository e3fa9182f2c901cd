/**
 * @module API key routes (admin only): create (the secret shown once), list, delete. Without an
 * admin key every loopback request is already the admin's, so a key would grant nothing: these
 * routes then answer `409 keys_disabled` rather than mint secrets that do nothing.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { ApiKey, CreateKeyInput, NotFoundError, SimulacraError } from "../src/domain/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import { createKey, deleteKey, listKeys } from "../lib/access/api_keys.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonBody, jsonContent } from "./_openapi.ts";
import { errorResponses } from "./errors.ts";

const keys = routeGroup("Keys");

/** Why the key routes refuse on a server without an admin key, and how to turn keys on. */
export const KEYS_DISABLED_MESSAGE =
  "Cannot manage API keys: this server has no admin key, so every request (loopback only) is already allowed and a key would grant nothing. Set SIMULACRA_ADMIN_KEY (16+ characters, e.g. SIMULACRA_ADMIN_KEY=$(openssl rand -hex 24) deno task start) to require keys, then call this route with Authorization: Bearer <that key>";

/** The `409 keys_disabled` answer, described for what it means on these routes. */
const keysDisabled = {
  409: {
    description:
      "keys_disabled: the server has no SIMULACRA_ADMIN_KEY, so keys would grant nothing",
    content: errorResponses(409)[409].content,
  },
};

const CreatedKey = ApiKey.extend({
  secret: z.string().meta({
    description: "The key itself, shown this once: send it as Authorization: Bearer <secret>",
    example: "sk_sim_k_0123456789abcdef0123_…",
  }),
}).meta({ id: "CreatedKey" });

const createKeyRoute = keys.post("/keys", {
  middleware: requires("admin"),
  operationId: "createKey",
  summary: "Create an API key scoped to worlds or agents, with permissions, limits and budget",
  request: { body: jsonBody(CreateKeyInput) },
  responses: {
    201: jsonContent(CreatedKey, "The key and its secret (never shown again)"),
    ...keysDisabled,
  },
  errors: [400, 401, 403, 413, 503],
});

const listKeysRoute = keys.get("/keys", {
  middleware: requires("admin"),
  operationId: "listKeys",
  summary: "List API keys (never their secrets)",
  responses: {
    200: jsonContent(z.object({ keys: z.array(ApiKey) }), "Every key"),
    ...keysDisabled,
  },
  errors: [401, 403, 503],
});

const deleteKeyRoute = keys.delete("/keys/{id}", {
  middleware: requires("admin"),
  operationId: "deleteKey",
  summary: "Revoke an API key: refused from the next request on, on every instance",
  request: {
    params: z.object({ id: z.string().max(64).meta({ param: { name: "id", in: "path" } }) }),
  },
  responses: { 204: { description: "Revoked" }, ...keysDisabled },
  errors: [401, 403, 404, 503],
});

/** Options of {@linkcode keyRoutes}. */
export interface KeyRouteOptions {
  /** Whether the server has an admin key; without one the routes answer `409 keys_disabled`. */
  adminKeySet: boolean;
}

/** The `/v1/keys` routes. */
export function keyRoutes(
  deps: Pick<Deps, "storage">,
  options: KeyRouteOptions,
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  if (!options.adminKeySet) {
    // Before the routes' own body and parameter checks: nothing about the request can help.
    const refuse = () => {
      throw new SimulacraError("keys_disabled", KEYS_DISABLED_MESSAGE);
    };
    app.use("/keys", refuse);
    app.use("/keys/*", refuse);
  }
  app.openapi(createKeyRoute, async (c) => {
    const { key, secret } = await createKey(deps.storage.documents, c.req.valid("json"), {
      now: new Date(),
    });
    return c.json({ ...key, secret }, 201);
  });
  app.openapi(
    listKeysRoute,
    async (c) => c.json({ keys: await listKeys(deps.storage.documents) }, 200),
  );
  app.openapi(deleteKeyRoute, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await deleteKey(deps.storage.documents, id))) {
      throw new NotFoundError(
        "not_found",
        `Cannot find API key "${id}": list keys with GET /v1/keys`,
      );
    }
    return c.body(null, 204);
  });
  return app;
}
