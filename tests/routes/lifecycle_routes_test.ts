import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { startBackends, type StoredItem } from "../_helpers/backends.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";
import { call as callApp } from "../_helpers/http_call.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { RESIDENTS, TOWN } from "../src/domain/_town_fixture.ts";

const { backends, close } = await startBackends();
const DOOMED = "doomed-9q";
const KEPT = "kept-9q";

/** The parts of a stored key: KV key parts, Redis key segments, scopes split at "/". */
function keyParts(key: string): string[] {
  let decoded = key;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    // keep it as stored
  }
  return decoded.split(/[:/#"\[\],]/).filter((p) => p !== "");
}

/** Items that belong to the agent: a key naming it, or an event of it. */
function ownedBy(items: StoredItem[], world: string, agent: string): StoredItem[] {
  return items.filter((item) => {
    const parts = keyParts(item.key);
    if (!parts.includes(world)) return false;
    const event = /"ev"|:events:/.test(item.key);
    return parts.includes(agent) || (event && item.value.includes(`"agentId":"${agent}"`));
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] DELETE world/agent/memory remove everything they own; PATCH agent; pages; unknown query params`,
    ...sanitizersFor(backend),
    async fn() {
      await using store = await backend.openInspected();
      await using deps = await makeTestDeps({ storage: store.storage });
      let now = Date.UTC(2026, 10, 23, 12, 0, 0);
      const app = createApp(deps, { logger: silentLogger, now: () => now });
      const call = (method: string, path: string, body?: unknown) =>
        callApp(app, method, path, body);
      // Two full worlds: the town with its residents, ticked, talked to, reflected on.
      for (const id of [DOOMED, KEPT]) {
        const w = `/v1/worlds/${id}`;
        const made = await call("POST", "/v1/worlds", {
          id,
          name: id,
          startTime: "2023-02-13T06:50:00",
          clock: { mode: "manual" },
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        assert.equal((await call("PUT", `${w}/environment`, TOWN)).status, 200);
        for (const resident of RESIDENTS) {
          assert.equal((await call("POST", `${w}/agents`, resident)).status, 201);
        }
        for (const tickId of ["t1", "t2"]) {
          const tick = await call("POST", `${w}/tick`, { tickId, minutes: 30 });
          assert.equal(tick.status, 200, JSON.stringify(tick.body));
        }
        const a = `${w}/agents/isabella`;
        assert.equal(
          (await call("POST", `${a}/perceive`, {
            observations: [{ text: "Sam Moore says he is running for mayor", eventId: "e1" }],
          })).status,
          200,
        );
        const reflected = await call("POST", `${a}/reflect`, { force: true });
        assert.equal(reflected.status, 200, JSON.stringify(reflected.body));
        const replied = await call("POST", `${a}/respond`, {
          message: "Hi Isabella, how is the party planning going?",
          speaker: { name: "Klaus" },
          conversationId: "c1",
        });
        assert.equal(replied.status, 200, JSON.stringify(replied.body));
        const talk = await call("POST", `${w}/conversations`, {
          participants: ["isabella", "john"],
        });
        assert.equal(talk.status, 200, JSON.stringify(talk.body));
      }
      const w = `/v1/worlds/${DOOMED}`;
      const a = `${w}/agents/isabella`;

      // Pages and unknown parameters.
      const first = await call("GET", `${w}/agents?limit=2`);
      assert.deepEqual(first.body.agents.map((x: { id: string }) => x.id), ["eddy", "isabella"]);
      const second = await call("GET", `${w}/agents?limit=2&cursor=${first.body.next}`);
      assert.deepEqual(second.body.agents.map((x: { id: string }) => x.id), ["john"]);
      assert.equal(second.body.next, null);
      const worlds = await call("GET", "/v1/worlds?limit=1");
      assert.equal(worlds.body.worlds[0].id, DOOMED);
      assert.equal(worlds.body.next, DOOMED);
      const memories = await call("GET", `${a}/memories?limit=3`);
      assert.equal(memories.body.memories.length, 3);
      assert.equal(typeof memories.body.next, "string");
      for (
        const path of [
          `${w}/agents?colour=red`,
          `${w}?verbose=1`,
          `/v1/worlds?limt=5`,
          `${a}/memories?kinds=chat`,
          `${w}/usage?x=1`,
          `${a}/plan?date=2023-02-13&extra=1`,
        ]
      ) {
        const res = await call("GET", path);
        assert.equal(res.status, 400, path);
        assert.equal(res.body.error.code, "invalid_request", path);
        assert.equal(res.body.error.details.target, "query", path);
      }

      // PATCH agent: name, age, traits and status fields.
      const patched = await call("PATCH", a, {
        name: "Isabella R.",
        age: 35,
        traits: "warm, busy",
        action: "arranging flowers",
        location: "Hobbs Cafe:cafe",
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(
        [patched.body.name, patched.body.age, patched.body.traits, patched.body.action],
        ["Isabella R.", 35, ["warm", "busy"], "arranging flowers"],
      );
      assert.equal((await call("GET", a)).body.name, "Isabella R.");
      assert.equal((await call("PATCH", a, { age: -1 })).status, 400);
      assert.equal((await call("PATCH", a, { description: "x" })).status, 400);
      assert.equal((await call("PATCH", `${w}/agents/nobody`, { age: 3 })).status, 404);

      // Forget a memory a reflection cites: the reflection keeps its text, marks the evidence.
      const reflections = await call("GET", `${a}/memories?kind=reflection&limit=50`);
      const reflection = reflections.body.memories.find((m: { evidence?: string[] }) =>
        m.evidence?.length
      );
      assert.ok(reflection, "a reflection with evidence");
      const cited = reflection.evidence[0];
      const forgotten = await call("DELETE", `${a}/memories/${cited}`);
      assert.equal(forgotten.status, 200, JSON.stringify(forgotten.body));
      assert.ok(forgotten.body.citedBy.includes(reflection.id));
      assert.equal((await call("GET", `${a}/memories/${cited}`)).status, 404);
      assert.equal((await call("DELETE", `${a}/memories/${cited}`)).status, 404);
      const kept = await call("GET", `${a}/memories/${reflection.id}`);
      assert.equal(kept.body.description, reflection.description);
      assert.deepEqual(kept.body.forgottenEvidence, [cited]);
      const retrieved = await call("POST", `${a}/retrieve`, { query: "party", k: 50 });
      assert.ok(!retrieved.body.memories.some((m: { id: string }) => m.id === cited));
      assert.ok(
        !(await store.contents()).some((i) => keyParts(i.key).includes(cited)),
        "no record, vector or index entry of the forgotten memory",
      );

      // Delete an agent: nothing of it is left in any store; the others keep theirs.
      assert.ok(ownedBy(await store.contents(), DOOMED, "isabella").length > 10);
      const deleted = await call("DELETE", a);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.deepEqual(ownedBy(await store.contents(), DOOMED, "isabella"), []);
      assert.equal((await call("GET", a)).status, 404);
      assert.equal((await call("GET", `${w}/events?agent=isabella`)).body.events.length, 0);
      assert.ok((await call("GET", `${w}/agents/john/memories`)).body.memories.length > 0);
      assert.ok(
        ownedBy(await store.contents(), KEPT, "isabella").length > 10,
        "other world intact",
      );
      assert.equal((await call("DELETE", a)).status, 404);

      // Delete the world: not one item in any store names it; the other world is whole. A
      // minute later, so the request would be recorded as activity if deletion did not skip it.
      now += 60_000;
      const gone = await call("DELETE", w);
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      assert.equal(gone.body.agents, 2);
      // The audit log is the server's record, not the world's: it keeps who deleted what (and
      // what was done before) for its retention period.
      const left = (await store.contents()).filter((i) =>
        (i.key.includes(DOOMED) || i.value.includes(DOOMED)) && !isAuditEntry(i.key)
      );
      assert.deepEqual(left, []);
      assert.equal((await call("GET", w)).status, 404);
      assert.equal((await call("DELETE", w)).status, 404);
      assert.deepEqual(
        (await call("GET", "/v1/worlds")).body.worlds.map((x: { id: string }) => x.id),
        [KEPT],
      );
      const keptAgent = await call("GET", `/v1/worlds/${KEPT}/agents/isabella/memories?limit=5`);
      assert.equal(keptAgent.body.memories.length, 5);
      // The id can be used again, from scratch.
      const again = await call("POST", "/v1/worlds", {
        id: DOOMED,
        name: "again",
        startTime: "2023-02-13T06:50:00",
      });
      assert.equal(again.status, 201);
      assert.deepEqual((await call("GET", `${w}/events`)).body.events, []);
    },
  });
}

Deno.test({
  name: "lifecycle routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});

/** An audit log entry's key, on either backend. */
function isAuditEntry(key: string): boolean {
  return key.startsWith('["audit",') || /^[^:]+:audit:/.test(key);
}
