/**
 * Multiplayer over HTTP on both storage backends (issue 23): an API key bound to a player speaks
 * only as that player, in conversation lines and in respond.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { type App, sanitizersFor } from "../_helpers/backend_app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

const ISABELLA = {
  id: "isabella",
  name: "Isabella Rodriguez",
  description: "Isabella Rodriguez is the owner of Hobbs Cafe; she loves a good party",
};

const ADMIN = "admin-key-0123456789abcdef";

/** A request as `bearer`. */
async function as(
  app: App,
  bearer: string,
  [method, path, body]: [string, string, unknown?],
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] a key bound to a player speaks only as it: refused for another player`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const app = createApp(deps, { logger: silentLogger, adminKey: ADMIN });
      const admin = (method: string, path: string, body?: unknown) =>
        as(app, ADMIN, [method, path, body]);
      const world = await admin("POST", "/v1/worlds", {
        name: "Tavern",
        startTime: "2023-02-13T12:00:00",
      });
      const w = `/v1/worlds/${world.body.id}`;
      await admin("POST", `${w}/agents`, ISABELLA);
      for (const [id, name] of [["ada", "Ada"], ["bob", "Bob"]]) {
        const made = await admin("POST", `${w}/agents`, {
          id,
          name,
          kind: "player",
          description: "A player",
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      }
      const key = await admin("POST", "/v1/keys", {
        name: "Ada's client",
        scope: { worlds: [world.body.id] },
        permissions: ["read", "talk"],
        player: "ada",
      });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      assert.equal(key.body.player, "ada");
      const ada = (method: string, path: string, body?: unknown) =>
        as(app, key.body.secret, [method, path, body]);
      const opened = await admin("POST", `${w}/conversations`, {
        participants: ["ada", "bob", "isabella"],
      });
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
      const lines = `${w}/conversations/${opened.body.conversationId}/lines`;
      const asBob = await ada("POST", lines, { speaker: "bob", text: "I am Bob, honestly" });
      assert.equal(asBob.status, 403, JSON.stringify(asBob.body));
      assert.equal(asBob.body.error.code, "forbidden");
      assert.match(asBob.body.error.message, /only as player "ada"/);
      const own = await ada("POST", lines, { text: "Hello Isabella!" });
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.equal(own.body.lines[0].speaker, "isabella");
      const stored = await admin("GET", `${w}/conversations/${opened.body.conversationId}`);
      const said = stored.body.lines.find((l: { text: string }) => l.text === "Hello Isabella!");
      assert.equal(said.speaker, "ada", "the bound player said it");
      const talk = await ada("POST", `${w}/agents/isabella/respond`, {
        message: "Nice tavern",
        speaker: { name: "Bob" },
      });
      assert.equal(talk.status, 200, JSON.stringify(talk.body));
      const memories = await admin("GET", `${w}/agents/isabella/memories?kind=chat`);
      assert.ok(
        memories.body.memories.some((m: { provenance: string; description: string }) =>
          m.provenance === "told_by:Ada" && m.description.includes("Nice tavern")
        ),
        "respond remembers the bound player's name, not the one sent",
      );
    },
  });
}

Deno.test({
  name: "player key routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
