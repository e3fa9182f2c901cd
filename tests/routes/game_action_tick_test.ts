/**
 * A tick step's action may be one of the game's actions (issue 22): the plan-actions call that
 * decomposes the hour (or the item-plan call that decomposes a long item) says so, the step is announced as an `action.requested` event with an id
 * the game reports the outcome under, and registering actions adds no model call to a tick or
 * to perceive; on both storage backends.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { type App, sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { countingModel, makeTestDeps } from "../_helpers/test_deps.ts";
import { createApp } from "../../routes/app.ts";
import { silentLogger } from "../../lib/logger.ts";
import { KvTickQueue } from "../../lib/queues/kv_tick_queue.ts";
import type { TickMessage } from "../../src/ports/tick_queue.ts";
import { consumeTickMessage } from "../../src/app/simulation/tick_world.ts";
import type { LanguageModel } from "../../src/ports/language_model.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { answerItemPlan } from "../../lib/offline/responders/item_plan.ts";

const { backends, close } = await startBackends();

const WAKE_UP = {
  name: "wake_up",
  description: "Play the agent's waking-up animation",
  parameters: { type: "object", properties: {}, additionalProperties: false },
};
const AGENT = { id: "mira", name: "Mira Lund", description: "Mira keeps the lantern shop" };

const SHOP_TOWN = {
  areas: [
    {
      name: "Lantern Store",
      subAreas: [{ name: "shop", objects: [{ name: "counter" }, { name: "shelf" }] }],
    },
    { name: "Mira's cottage", subAreas: [{ name: "bedroom", objects: [{ name: "bed" }] }] },
  ],
};

/**
 * A world of Mira with `actions` registered (in `town`, working at its first area and living in
 * its second, when given), ticked 10 minutes from `startTime`.
 */
async function tickedWorld(
  app: App,
  id: string,
  { startTime, actions, town }: { startTime: string; actions: unknown[]; town?: typeof SHOP_TOWN },
): Promise<void> {
  const made = await call(app, "POST", "/v1/worlds", {
    id,
    name: id,
    startTime,
    clock: { mode: "manual" },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const places = town ? { workplace: town.areas[0].name, home: town.areas[1].name } : {};
  if (town) {
    assert.equal((await call(app, "PUT", `/v1/worlds/${id}/environment`, town)).status, 200);
  }
  const mira = await call(app, "POST", `/v1/worlds/${id}/agents`, { ...AGENT, ...places });
  assert.equal(mira.status, 201, JSON.stringify(mira.body));
  assert.equal((await call(app, "PUT", `/v1/worlds/${id}/actions`, actions)).status, 200);
  const tick = await call(app, "POST", `/v1/worlds/${id}/tick`, { minutes: 10 });
  assert.equal(tick.status, 200, JSON.stringify(tick.body));
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a tick step that is a game action is announced as action.requested, at no extra model call`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        /** A world of one agent, ticked 10 minutes: the kinds of the model calls it made. */
        const run = async (id: string, actions: unknown[]) => {
          const before = counting.kinds.length;
          await tickedWorld(app, id, { startTime: "2023-02-13T07:00:00", actions });
          const perceived = await call(app, "POST", `/v1/worlds/${id}/agents/mira/perceive`, {
            observations: [{ text: "The bell over the door rings" }],
          });
          assert.equal(perceived.status, 200);
          return counting.kinds.slice(before);
        };
        const plain = await run("plain", []);
        const hooked = await run("hooked", [WAKE_UP]);
        assert.deepEqual(hooked, plain, "the same model calls with actions registered");

        const requested = await call(app, "GET", "/v1/worlds/hooked/events?type=action.requested");
        assert.equal(requested.body.events.length, 1, JSON.stringify(requested.body));
        const [event] = requested.body.events;
        assert.equal(event.agentId, "mira");
        assert.equal(event.name, "wake_up");
        assert.deepEqual(event.arguments, {});
        assert.match(event.id, /^act/);
        const none = await call(app, "GET", "/v1/worlds/plain/events?type=action.requested");
        assert.equal(none.body.events.length, 0);

        // The plan carries the step's game action; the next tick in the same step does not
        // announce it again.
        const action = await call(app, "GET", "/v1/worlds/hooked/agents/mira/action");
        assert.equal(action.body.action.gameAction.id, event.id);
        await call(app, "POST", "/v1/worlds/hooked/tick", { minutes: 5 });
        const again = await call(app, "GET", "/v1/worlds/hooked/events?type=action.requested");
        assert.equal(again.body.events.length, 1, "announced once");

        // The game reports the outcome with the action's id; the agent remembers it.
        const outcome = await call(app, "POST", "/v1/worlds/hooked/agents/mira/perceive", {
          observations: [{ text: "Mira stretched and yawned at the window", eventId: event.id }],
        });
        assert.deepEqual(outcome.body.outcomes, ["created"]);
        assert.equal(outcome.body.memories[0].eventId, event.id);
      }, { model: counting.model });
    },
  });
}

/** Served at the counter: a step of the shop's offline activity ("serving customers…"). */
const SERVE = {
  name: "serve_customer",
  description: "Serve the customer at the shop counter",
  parameters: { type: "object", properties: {}, additionalProperties: false },
};

/**
 * A world of Mira at 08:30, in the first hour of her four-hour block at the shop (the offline
 * model's workday), with `actions`, ticked 10 minutes.
 */
function shopMorning(app: App, id: string, actions: unknown[]): Promise<void> {
  return tickedWorld(app, id, { startTime: "2023-02-13T08:30:00", actions, town: SHOP_TOWN });
}

/** The offline model, its item plans proposing `fly` wherever they propose a game action. */
function flyingModel(): LanguageModel {
  return new OfflineLanguageModel({
    responders: {
      item_plan: (input) => {
        const answer = answerItemPlan(input);
        return {
          chunks: answer.chunks.map((c) => ({
            ...c,
            actions: c.actions.map((a) =>
              a.game_action ? { ...a, game_action: { name: "fly", arguments: "{}" } } : a
            ),
          })),
        };
      },
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a step of a long plan item proposes its game action in the one item-plan call`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const before = counting.kinds.length;
        await shopMorning(app, "plain", []);
        const plain = counting.kinds.slice(before);
        const from = counting.sent.length;
        await shopMorning(app, "hooked", [SERVE]);
        const hooked = counting.kinds.slice(before + plain.length);
        assert.deepEqual(hooked, plain, "the same model calls with actions registered");
        assert.ok(hooked.includes("item_plan"), `the long item is one item-plan call: ${hooked}`);
        assert.ok(!hooked.includes("actions"), "no actions call for it");
        const itemPlan = counting.sent.slice(from).find((s) => s.prompt.kind === "item_plan")!;
        assert.match(JSON.stringify(itemPlan.prompt.messages), /serve_customer/);

        const plan = await call(app, "GET", "/v1/worlds/hooked/agents/mira/plan?date=2023-02-13");
        assert.equal(plan.status, 200, JSON.stringify(plan.body));
        const item = plan.body.items.find((i: { start: string }) => i.start.endsWith("T08:00:00"));
        assert.ok(item.chunks.length > 1, "a long item, in hour chunks");
        const action = await call(app, "GET", "/v1/worlds/hooked/agents/mira/action");
        assert.match(action.body.action.description, /serving/);
        assert.equal(action.body.action.gameAction.name, "serve_customer");
        const requested = await call(app, "GET", "/v1/worlds/hooked/events?type=action.requested");
        assert.deepEqual(
          requested.body.events.map((e: { name: string; id: string }) => [e.name, e.id]),
          [["serve_customer", action.body.action.gameAction.id]],
        );
      }, { model: counting.model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] a step's game action that fails the check is announced as action.dropped`,
    ...sanitizersFor(backend),
    async fn() {
      await withBackendApp(backend, async (app) => {
        await shopMorning(app, "flying", [SERVE]);
        const dropped = await call(app, "GET", "/v1/worlds/flying/events?type=action.dropped");
        assert.equal(dropped.body.events.length, 1, JSON.stringify(dropped.body));
        const [event] = dropped.body.events;
        assert.equal(event.agentId, "mira");
        assert.equal(event.name, "fly");
        assert.match(event.reason, /unknown action "fly"/);
        const requested = await call(app, "GET", "/v1/worlds/flying/events?type=action.requested");
        assert.equal(requested.body.events.length, 0, "nothing reaches the game");
        const action = await call(app, "GET", "/v1/worlds/flying/agents/mira/action");
        assert.equal(action.body.action.gameAction, undefined);
        assert.equal(action.body.action.droppedGameAction.name, "fly");
      }, { model: flyingModel() });
    },
  });
}

Deno.test("a tick through the queue announces the game action too: the tick plan carries the actions", async () => {
  await using deps = await makeTestDeps();
  const kv = await Deno.openKv(":memory:");
  const queue = new KvTickQueue(kv);
  const listening = queue.listen((m: TickMessage) => consumeTickMessage(deps, m, queue));
  try {
    const app = createApp(deps, { logger: silentLogger, tickQueue: queue });
    const made = await call(app, "POST", "/v1/worlds", {
      id: "queued",
      name: "Queued",
      startTime: "2023-02-13T07:00:00",
      clock: { mode: "manual" },
    });
    assert.equal(made.status, 201);
    assert.equal((await call(app, "POST", "/v1/worlds/queued/agents", AGENT)).status, 201);
    assert.equal((await call(app, "PUT", "/v1/worlds/queued/actions", [WAKE_UP])).status, 200);
    const tick = await call(app, "POST", "/v1/worlds/queued/tick", { minutes: 10 });
    assert.equal(tick.status, 200, JSON.stringify(tick.body));
    const requested = await call(app, "GET", "/v1/worlds/queued/events?type=action.requested");
    assert.deepEqual(
      requested.body.events.map((e: { name: string; agentId: string }) => [e.agentId, e.name]),
      [["mira", "wake_up"]],
    );
  } finally {
    await queue.stop();
    kv.close();
    await listening.catch(() => {});
  }
});

Deno.test({
  name: "game action tick: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
