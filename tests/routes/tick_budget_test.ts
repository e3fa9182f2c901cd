/**
 * Ticks and budgets over HTTP, on both storage backends, through the service as the entries wire
 * it (`services.ts`: budget metering, the queue's consumer): a world's daily budget and an API
 * key's budget stop ticks whether their steps run in the request or through the queue, and every
 * model call a tick makes counts toward both.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../lib/config.ts";
import { silentLogger } from "../../lib/logger.ts";
import { KvTickQueue } from "../../lib/queues/kv_tick_queue.ts";
import { createApp } from "../../routes/app.ts";
import { type Services, wireServices } from "../../services.ts";
import { keySubject } from "../../src/domain/mod.ts";
import type { Storage, TickQueue } from "../../src/ports/mod.ts";
import { type Backend, startBackends } from "../_helpers/backends.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";
import { HeldQueue } from "../src/simulation/_held_queue.ts";
import { RESIDENTS, TOWN } from "../src/domain/_town_fixture.ts";

const { backends, close } = await startBackends();
const ADMIN = "admin-key-0123456789abcdef";

// deno-lint-ignore no-explicit-any
type Json = any;
type App = ReturnType<typeof createApp>;
type Call = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: Json }>;

/** What a test gets: the app and the services of one wiring, and the store under them. */
interface Wired {
  app: App;
  services: Services;
  storage: Storage;
  admin: Call;
}

function caller(app: App, bearer: string): Call {
  return async (method, path, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await app.request(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
}

/**
 * Runs `fn` against the service wired as `main.ts` and `worker.ts` wire it, over a fresh store of
 * the backend (handed to the wiring as its store), offline; with `queue`, ticks step through it.
 */
async function withService(
  backend: Backend,
  queue: TickQueue | undefined,
  fn: (wired: Wired) => Promise<void>,
): Promise<void> {
  const storage = await backend.open();
  const services = await wireServices(loadConfig({}, { runtime: "deno" }), {
    logger: silentLogger,
    openEmbedded: () => Promise.resolve(storage),
    queue,
  });
  try {
    const app = createApp(services.deps, {
      ...services.app,
      logger: silentLogger,
      adminKey: ADMIN,
    });
    await fn({ app, services, storage, admin: caller(app, ADMIN) });
  } finally {
    await storage.close();
  }
}

/** Runs `fn` with ticks stepped in the request, then again through a Deno KV queue. */
async function inBothRunners(
  backend: Backend,
  fn: (wired: Wired, runner: string) => Promise<void>,
): Promise<void> {
  await withService(backend, undefined, (wired) => fn(wired, "in process"));
  const kv = await Deno.openKv(":memory:");
  const queue = new KvTickQueue(kv);
  let listening: Promise<void> | undefined;
  try {
    await withService(backend, queue, async (wired) => {
      listening = queue.listen((message) => wired.services.consume(message));
      try {
        await fn(wired, "queued");
      } finally {
        // Before the store closes: a step still running would fail on the closed store, and
        // Deno prints that as "Exception in queue handler" in the test output.
        await queue.stop();
      }
    });
  } finally {
    await queue.stop();
    kv.close();
    await listening?.catch(() => {});
  }
}

/** The three-person town as a world of the given clock mode; returns its path. */
async function town(admin: Call, mode: "manual" | "cron" = "manual"): Promise<string> {
  const made = await admin("POST", "/v1/worlds", {
    name: "Town",
    startTime: "2023-02-13T06:50:00",
    clock: { mode },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const w = `/v1/worlds/${made.body.id}`;
  assert.equal((await admin("PUT", `${w}/environment`, TOWN)).status, 200);
  for (const resident of RESIDENTS) {
    const agent = await admin("POST", `${w}/agents`, resident);
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
  }
  return w;
}

/** A tick's state once it closed (queued steps run as the queue delivers them), or at 30 s. */
async function closedTick(admin: Call, path: string): Promise<{ status: number; body: Json }> {
  for (const until = Date.now() + 30_000;;) {
    const read = await admin("GET", path);
    if (read.body.status === "done" || Date.now() >= until) return read;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function spentToday(admin: Call, w: string): Promise<number> {
  const usage = await admin("GET", `${w}/usage`);
  assert.equal(usage.status, 200, JSON.stringify(usage.body));
  return usage.body.budget.spent.calls;
}

/** A key that may tick the world, with a budget of `calls`. */
async function tickingKey(
  admin: Call,
  w: string,
  calls: number,
): Promise<{ id: string; secret: string }> {
  const minted = await admin("POST", "/v1/keys", {
    name: "game",
    scope: { worlds: [w.split("/").at(-1)] },
    permissions: ["read", "simulate", "talk"],
    budget: { calls },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  return minted.body;
}

async function keySpent(storage: Storage, keyId: string): Promise<number> {
  return (await storage.usage.spend(keySubject(keyId), "total")).calls;
}

for (const backend of backends) {
  // The queue's listener outlives a test's last await on both backends.
  const opts = { ...sanitizersFor(backend), sanitizeOps: false };

  Deno.test({
    name:
      `[${backend.name}] a tick of a world whose daily budget is spent coasts, in process or queued, with or without a tick id`,
    ...opts,
    fn: () =>
      inBothRunners(backend, async ({ admin }, runner) => {
        const w = await town(admin);
        const set = await admin("PATCH", w, { settings: { budget: { callsPerDay: 1 } } });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        const spent = await spentToday(admin, w);
        assert.ok(spent >= 1, "creating the agents spent the budget");
        const refused = await admin("POST", `${w}/agents/eddy/respond`, { message: "Hello" });
        assert.equal(refused.status, 429, runner);
        for (const body of [{}, { tickId: `t-${runner.replace(" ", "-")}` }, undefined]) {
          const tick = await admin("POST", `${w}/tick`, body);
          assert.equal(tick.status, 200, `${runner} ${JSON.stringify(tick.body)}`);
          assert.equal(tick.body.budgetExhausted, true, `${runner}, body ${JSON.stringify(body)}`);
          assert.equal(tick.body.usage.calls, 0, runner);
          assert.deepEqual(tick.body.steps.map((s: Json) => s.budgetExhausted), [true, true, true]);
        }
        assert.equal(await spentToday(admin, w), spent, `${runner}: no model call`);
        assert.equal((await admin("GET", w)).body.clock.now, "2023-02-13T07:20:00");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] every model call of a tick counts toward the world's daily budget: in-process and queued steps, requested and scheduled ticks`,
    ...opts,
    fn: () =>
      inBothRunners(backend, async ({ admin, services }, runner) => {
        const w = await town(admin, "cron");
        let before = await spentToday(admin, w);
        let calls = 0;
        for (let i = 0; i < 3; i++) {
          const tick = await admin("POST", `${w}/tick`, {});
          assert.equal(tick.status, 200, JSON.stringify(tick.body));
          calls += tick.body.usage.calls;
        }
        assert.ok(calls > 0, `${runner}: the ticks called the model`);
        assert.equal(await spentToday(admin, w), before + calls, runner);

        // The scheduler's tick, stepped in its call or through the queue.
        before = await spentToday(admin, w);
        const run = await services.tick(Date.now());
        const scheduled = run.ticks.find((t) => w.endsWith(`/${t.worldId}`));
        assert.ok(scheduled && scheduled.error === undefined, JSON.stringify(run.ticks));
        const read = await closedTick(admin, `${w}/ticks/${encodeURIComponent(scheduled.tickId)}`);
        assert.equal(read.body.status, "done", JSON.stringify(read.body));
        assert.equal(await spentToday(admin, w), before + read.body.result.usage.calls, runner);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] a key's budget holds across ticks: every call of its ticks, queued ones included, is charged to it, and once spent its next tick is refused`,
    ...opts,
    fn: () =>
      inBothRunners(backend, async ({ admin, app, storage }, runner) => {
        const w = await town(admin);
        const key = await tickingKey(admin, w, 2);
        const game = caller(app, key.secret);
        const first = await game("POST", `${w}/tick`, {});
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.ok(first.body.usage.calls > 2, "the first tick started under budget and went over");
        assert.equal(await keySpent(storage, key.id), first.body.usage.calls, runner);
        for (const body of [{}, { tickId: `again-${runner.replace(" ", "-")}` }]) {
          const next = await game("POST", `${w}/tick`, body);
          assert.equal(next.status, 429, `${runner}: ${JSON.stringify(next.body)}`);
          assert.equal(next.body.error.code, "budget_exceeded");
          assert.equal(next.body.error.details.budget, "key");
        }
        assert.equal(await keySpent(storage, key.id), first.body.usage.calls);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] queued steps check the key's budget as each starts: once spent, the steps that start after keep their plans`,
    ...opts,
    fn: async () => {
      const queue = new HeldQueue();
      await withService(backend, queue, async ({ admin, app, services, storage }) => {
        const w = await town(admin);
        const key = await tickingKey(admin, w, 1);
        const started = await caller(app, key.secret)("POST", `${w}/tick?wait=false`, {});
        assert.equal(started.status, 202, JSON.stringify(started.body));
        const charged = [await keySpent(storage, key.id)]; // what planning cost
        // Delivered one by one, so each step starts after the one before was charged.
        const steps = queue.take("step");
        assert.equal(steps.length, 3, "one message per agent");
        for (const message of steps) {
          await services.consume(message);
          charged.push(await keySpent(storage, key.id));
        }
        for (const message of queue.take("close")) await services.consume(message);
        const read = await admin("GET", `${w}/ticks/${started.body.tickId}`);
        assert.equal(read.body.status, "done", JSON.stringify(read.body));
        const { result } = read.body;
        const coasted = result.steps.map((s: Json) => s.budgetExhausted === true);
        // A step ran while the key had calls left as it started, and coasted once they were gone.
        assert.deepEqual(coasted, charged.slice(0, 3).map((spent) => spent >= 1));
        assert.ok(coasted.some(Boolean), "the budget ran out during the tick");
        assert.equal(result.budgetExhausted, true);
        // The last step's message also closes the tick (the object-state call for what the step
        // that ran put to use): the steps before it show what a coasting step costs.
        for (const i of [0, 1]) {
          if (coasted[i]) assert.equal(charged[i + 1], charged[i], "a coasting step calls nothing");
        }
        assert.equal(charged.at(-1), result.usage.calls, "the key paid for every call of the tick");
      });
    },
  });
}

Deno.test({ name: "stop the hosted backend's servers", fn: close });
