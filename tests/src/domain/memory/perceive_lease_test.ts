/**
 * A perceive retried while the first attempt still waits on a slow model (slower than the agent
 * lock's TTL): the lock is renewed, the retry waits for the first and returns its memory, and
 * the reflection counter counts the memory once. And when a holder does lose its lock (its
 * renewals stop, as in a long stall), its fenced writes refuse, so nothing is doubled.
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../../lib/offline/offline_language_model.ts";
import { AGENT_LOCK_TTL_MS } from "../../../../src/app/agents/agent_lock.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import type { Lock } from "../../../../src/ports/lock.ts";
import type { Storage } from "../../../../src/ports/storage.ts";
import { silentLogger } from "../../../../lib/logger.ts";
import { createApp } from "../../../../routes/app.ts";
import { sanitizersFor, withBackendApp } from "../../../_helpers/backend_app.ts";
import { call, type RequestTarget } from "../../../_helpers/http_call.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { startBackends } from "../../../_helpers/backends.ts";

const { backends, close } = await startBackends();

/**
 * The offline model, `delayMs` slower per call once `slow` is set (after the setup); `called`
 * resolves when the first slow call starts. The delay is real: it outlasts the real lease TTL
 * in a real store, which is what these tests are about.
 */
function slowModel(delayMs: number): LanguageModel & { slow: boolean; called: Promise<void> } {
  const inner = new OfflineLanguageModel({});
  const first = Promise.withResolvers<void>();
  return {
    info: inner.info,
    slow: false,
    called: first.promise,
    async complete(prompt, attribution) {
      if (this.slow) {
        first.resolve();
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      return await inner.complete(prompt, attribution);
    },
  };
}

type App = RequestTarget;

function post(app: App, path: string, body: unknown) {
  return call(app, "POST", path, body);
}

async function world(app: App): Promise<string> {
  const w = await post(app, "/v1/worlds", { name: "Lease", startTime: "2023-02-13T07:00:00" });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  const a = await post(app, `/v1/worlds/${w.body.id}/agents`, {
    id: "ann",
    name: "Ann",
    description: "Ann bakes bread",
  });
  assert.equal(a.status, 201, JSON.stringify(a.body));
  return w.body.id;
}

const OBSERVATION = {
  observations: [
    { text: "A fire broke out at the bakery on Main Street", eventId: "fire-1" },
    { text: "Sam says he is running for mayor", eventId: "mayor-1" },
  ],
};

async function observationsOf(storage: Storage, worldId: string) {
  const scope = { worldId: WorldId.parse(worldId), agentId: AgentId.parse("ann") };
  const all = await storage.memories.all(scope);
  return { scope, observations: all.filter((m) => m.kind === "observation") };
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] perceive() retried during a model call slower than the lock's TTL stores one memory per event and counts it once`,
    ...sanitizersFor(backend),
    fn: async () => {
      const model = slowModel(AGENT_LOCK_TTL_MS + 1_500);
      await withBackendApp(backend, async (app, deps) => {
        const worldId = await world(app);
        const path = `/v1/worlds/${worldId}/agents/ann/perceive`;
        model.slow = true;
        const first = post(app, path, OBSERVATION);
        // The retry a client with a timeout sends while the first still waits on the model.
        await model.called;
        const retry = post(app, path, OBSERVATION);
        const [a, b] = await Promise.all([first, retry]);
        assert.equal(a.status, 200, JSON.stringify(a.body));
        assert.equal(b.status, 200, JSON.stringify(b.body));
        assert.deepEqual(a.body.outcomes, ["created", "created"]);
        assert.deepEqual(b.body.outcomes, ["existing", "existing"]);
        assert.deepEqual(
          b.body.memories.map((m: { id: string }) => m.id),
          a.body.memories.map((m: { id: string }) => m.id),
        );
        const { scope, observations } = await observationsOf(deps.storage, worldId);
        assert.equal(observations.length, 2, "One memory per eventId");
        const agent = (await loadAgent(deps, scope)).value;
        const stored = observations.reduce((sum, m) => sum + m.importance, 0);
        assert.equal(agent.importanceSinceReflection, stored, "The counter counts each once");
        assert.equal(b.body.importanceSinceReflection, stored);
      }, { model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] perceive() whose lock was taken over after it stopped renewing writes nothing`,
    ...sanitizersFor(backend),
    fn: async () => {
      // The first perceive's renewals do nothing: its lock really expires mid-call, as after
      // a stall, and the retry takes it over (and renews its own).
      const storage = await backend.open();
      let stalledToken: string | null = null;
      const locks: Lock = {
        async acquire(key, ttl) {
          const lease = await storage.locks.acquire(key, ttl);
          if (lease && key.startsWith("agent:") && model.slow) stalledToken ??= lease.token;
          return lease;
        },
        release: (lease) => storage.locks.release(lease),
        renew: (lease, ttl) =>
          lease.token === stalledToken ? Promise.resolve(true) : storage.locks.renew(lease, ttl),
      };
      // A unit of work takes its leases in its begin round trip: the first slow one stalls too.
      const units = {
        ...storage.units,
        begin: async (request: Parameters<Storage["units"]["begin"]>[0]) => {
          const begun = await storage.units.begin(request);
          const agent = begun.leases.find((l) => l?.key.startsWith("agent:"));
          if (agent && model.slow) stalledToken ??= agent.token;
          return begun;
        },
        commit: storage.units.commit.bind(storage.units),
      };
      const stalled = new Proxy(storage, {
        get: (target, name) => {
          if (name === "locks") return locks;
          if (name === "units") return units;
          const value = Reflect.get(target, name, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const model = slowModel(AGENT_LOCK_TTL_MS + 2_000);
      {
        await using deps = await makeTestDeps({ storage: stalled, model });
        const app = createApp(deps, { logger: silentLogger });
        const worldId = await world(app);
        const path = `/v1/worlds/${worldId}/agents/ann/perceive`;
        model.slow = true;
        const first = post(app, path, OBSERVATION);
        // Real time: the lock must really expire in the real store before the retry takes it.
        await new Promise((resolve) => setTimeout(resolve, AGENT_LOCK_TTL_MS + 500));
        model.slow = false; // only the stalled holder is slow
        const retry = post(app, path, OBSERVATION);
        const [a, b] = await Promise.all([first, retry]);
        const statuses = [a.status, b.status].sort();
        assert.deepEqual(statuses, [200, 409], JSON.stringify([a.body, b.body]));
        const lost = a.status === 409 ? a : b;
        assert.equal(lost.body.error.code, "conflict");
        const { scope, observations } = await observationsOf(deps.storage, worldId);
        assert.equal(observations.length, 2, "The holder that lost its lock wrote nothing");
        const agent = (await loadAgent(deps, scope)).value;
        const stored = observations.reduce((sum, m) => sum + m.importance, 0);
        assert.equal(agent.importanceSinceReflection, stored);
      }
    },
  });
}

Deno.test({
  name: "perceive lease tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
