/**
 * Actions (issue 22): a game registers its verbs, a chat reply carries the ones the agent takes
 * in the same model call, arguments are checked against the schema (bad ones dropped with their
 * reason, never passed on), the outcome comes back through perceive with the action's id; on
 * both storage backends.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { type App, sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call as callApp } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";
import { fakeModel } from "../_helpers/fake_model.ts";
import { sseMessages } from "../_helpers/sse.ts";

const { backends, close } = await startBackends();

const GIVE_ITEM = {
  name: "give_item",
  description: "Hand an item from the shop to the customer",
  parameters: {
    type: "object",
    properties: { item: { type: "string", minLength: 1 } },
    required: ["item"],
    additionalProperties: false,
  },
};
const OPEN_DOOR = {
  name: "open_door",
  description: "Open one of the shop's doors",
  parameters: {
    type: "object",
    properties: { door: { enum: ["front", "back"] } },
    required: ["door"],
  },
};
const KEEPER = {
  id: "mira",
  name: "Mira Lund",
  description: "Mira keeps the lantern shop on the harbour",
};

function caller(app: App) {
  return (method: string, path: string, body?: unknown) => callApp(app, method, path, body);
}

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] PUT …/actions stores the game's verbs; bad lists are refused by item`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const call = caller(app);
        const { w } = await worldWithAgent(app, KEEPER);
        assert.deepEqual((await call("GET", `${w}/actions`)).body, [], "none registered yet");
        const put = await call("PUT", `${w}/actions`, [GIVE_ITEM, OPEN_DOOR]);
        assert.equal(put.status, 200, JSON.stringify(put.body));
        assert.deepEqual((await call("GET", `${w}/actions`)).body, [GIVE_ITEM, OPEN_DOOR]);

        const refused = async (body: unknown, status: number, index: number, text: RegExp) => {
          const res = await call("PUT", `${w}/actions`, body);
          assert.equal(res.status, status, JSON.stringify(res.body));
          assert.equal(res.body.error.details.index, index);
          assert.match(res.body.error.message, text);
        };
        await refused([GIVE_ITEM, { ...OPEN_DOOR, name: "give_item" }], 422, 1, /already used/);
        await refused(
          [GIVE_ITEM, { ...OPEN_DOOR, parameters: { type: "object", properties: 3 } }],
          422,
          1,
          /not a supported JSON Schema/,
        );
        await refused(
          [{ ...GIVE_ITEM, parameters: { type: "strung" } }],
          422,
          0,
          /not a supported JSON Schema/,
        );
        await refused(
          [{ ...GIVE_ITEM, parameters: { type: "string" } }],
          422,
          0,
          /"type": "object"/,
        );
        await refused(
          [{ ...GIVE_ITEM, parameters: { type: "object", $ref: "http://example.com/s.json" } }],
          422,
          0,
          /\$ref/,
        );
        await refused([OPEN_DOOR, { ...GIVE_ITEM, description: "x".repeat(501) }], 422, 1, /500/);
        await refused([{ ...GIVE_ITEM, name: "Give-Item" }], 400, 0, /lower-case/);
        const many = Array.from({ length: 65 }, (_, i) => ({ ...GIVE_ITEM, name: `act_${i}` }));
        assert.equal((await call("PUT", `${w}/actions`, many)).status, 400, "at most 64");
        assert.deepEqual(
          (await call("GET", `${w}/actions`)).body,
          [GIVE_ITEM, OPEN_DOOR],
          "a refused list writes nothing",
        );
        assert.equal((await call("PUT", "/v1/worlds/nowhere/actions", [])).status, 404);
        assert.equal((await call("PUT", `${w}/actions`, [])).status, 200);
        assert.deepEqual((await call("GET", `${w}/actions`)).body, [], "[] removes them");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] respond carries the action the agent takes, in the same one call; perceive takes its outcome`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const call = caller(app);
        const { w, a } = await worldWithAgent(app, KEEPER);
        const say = (message: string, extra: Record<string, unknown> = {}) =>
          call("POST", `${a}/respond`, { message, speaker: { name: "Tom" }, ...extra });

        // No action registered: the prompt and the answer are as they always were.
        const before = await say("Please give me the lantern.");
        assert.equal(before.status, 200);
        assert.deepEqual(before.body.actions, []);
        assert.deepEqual(before.body.droppedActions, []);
        const plain = counting.sent.filter((s) => s.prompt.kind === "respond").at(-1)!;
        const plainText = plain.prompt.messages.map((m) => m.content).join("\n");
        assert.doesNotMatch(plainText, /game_actions|ACTIONS_DATA/);

        assert.equal((await call("PUT", `${w}/actions`, [GIVE_ITEM, OPEN_DOOR])).status, 200);
        const calls = counting.kinds.length;
        const asked = await say("Please give me the lantern.");
        assert.equal(asked.status, 200, JSON.stringify(asked.body));
        assert.equal(asked.body.actions.length, 1);
        const [action] = asked.body.actions;
        assert.equal(action.name, "give_item");
        assert.deepEqual(action.arguments, { item: "lantern" });
        assert.match(action.id, /^act/);
        assert.deepEqual(asked.body.droppedActions, []);
        assert.deepEqual(counting.kinds.slice(calls), ["respond"], "one call, actions included");
        const withActions = counting.sent.filter((s) => s.prompt.kind === "respond").at(-1)!;
        assert.match(withActions.prompt.messages[1].content, /ACTIONS_DATA[\s\S]*give_item/);

        const chat = await say("What a lovely evening.");
        assert.deepEqual(chat.body.actions, [], "small talk takes no action");
        const interview = await say("Please give me the lantern.", { mode: "interview" });
        assert.deepEqual(interview.body.actions, [], "an interview does nothing in the game");

        // The game reports the outcome with the action's id; the agent remembers it once.
        const outcome = {
          observations: [{ text: "Mira handed Tom the lantern", eventId: action.id }],
        };
        const first = await call("POST", `${a}/perceive`, outcome);
        assert.equal(first.status, 200);
        assert.deepEqual(first.body.outcomes, ["created"]);
        const again = await call("POST", `${a}/perceive`, outcome);
        assert.deepEqual(again.body.outcomes, ["existing"]);
        assert.equal(again.body.memories[0].id, first.body.memories[0].id);
        assert.equal(first.body.memories[0].eventId, action.id);

        // The streamed reply carries the actions in its final event.
        const res = await app.request(`${a}/respond`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ message: "Could you open the back door?" }),
        });
        const done = sseMessages(await res.text()).at(-1)!;
        assert.equal(done.event, "done");
        assert.equal(done.data.actions[0].name, "open_door");
        assert.deepEqual(done.data.actions[0].arguments, { door: "back" });
      }, { model: counting.model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] respond drops an invalid or unknown action the model chose, with the reason`,
    ...sanitizersFor(backend),
    async fn() {
      await using faked = await fakeModel();
      const { fake, model } = faked;
      await withBackendApp(backend, async (app) => {
        const call = caller(app);
        const { w, a } = await worldWithAgent(app, KEEPER);
        assert.equal((await call("PUT", `${w}/actions`, [GIVE_ITEM, OPEN_DOOR])).status, 200);
        fake.script("respond", {
          json: {
            reply: "Here, take it, and I'll fly you home.",
            thoughts: null,
            actions: null,
            bounded: false,
            importance: 4,
            replan: false,
            game_actions: [
              { name: "give_item", arguments: '{"item": "lantern"}' },
              { name: "fly", arguments: "{}" },
              { name: "give_item", arguments: '{"item": 3}' },
              { name: "open_door", arguments: '{"door": "cellar"}' },
              { name: "give_item", arguments: "{item: lantern" },
            ],
          },
        });
        const res = await call("POST", `${a}/respond`, { message: "The lantern, please." });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(
          res.body.actions.map((x: { name: string; arguments: unknown }) => [x.name, x.arguments]),
          [["give_item", { item: "lantern" }]],
          "only the valid action reaches the game",
        );
        const dropped = res.body.droppedActions as { name: string; reason: string }[];
        assert.deepEqual(dropped.map((d) => d.name), [
          "fly",
          "give_item",
          "open_door",
          "give_item",
        ]);
        assert.match(dropped[0].reason, /unknown action "fly"/);
        assert.match(dropped[1].reason, /do not match the schema at "item"/);
        assert.match(dropped[2].reason, /do not match the schema at "door"/);
        assert.match(dropped[3].reason, /not valid JSON/);
        const sent = fake.requests.filter((r) => r.kind === "respond").at(-1)!;
        const format = (sent.body as { response_format?: { json_schema?: { schema?: unknown } } })
          .response_format;
        assert.match(JSON.stringify(format), /game_actions/, "asked for in the structured output");
      }, { model });
    },
  });
}

Deno.test({
  name: "game action routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
