/**
 * The shape of a re-planned day: however often something comes up, the rest of the day is
 * planned into proper items (none awake over 6 hours), an activity cut short resumes at its own
 * place, and a directive of the inner voice becomes an item in the agent's own words.
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../../lib/offline/offline_language_model.ts";
import { answerDayPlan } from "../../../../lib/offline/responders/day_plan.ts";
import { type Agent, CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import type { DayPlan } from "../../../../src/domain/plan/plan.ts";
import { remainderBounds } from "../../../../src/domain/plan/replan.ts";
import type { DayPlanInput } from "../../../../src/domain/prompts/day_plan.ts";
import { gameMinutes, type GameTime } from "../../../../src/domain/time/game_time.ts";
import { Environment } from "../../../../src/domain/world/environment.ts";
import type { World } from "../../../../src/domain/world/world.ts";
import { makeDayPlan, replanFrom } from "../../../../src/app/cognition/planning.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { replaceEnvironment } from "../../../../src/app/world/environment_store.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

const TOWN = Environment.parse({
  areas: [
    {
      name: "Marigold Cafe",
      common: true,
      subAreas: [{ name: "cafe", objects: [{ name: "counter" }, { name: "table" }] }],
    },
    {
      name: "The Copper Kettle",
      common: true,
      subAreas: [{ name: "taproom", objects: [{ name: "bar counter" }] }],
    },
    {
      name: "Willow Green Park",
      common: true,
      subAreas: [{ name: "lawn", objects: [{ name: "bench" }] }],
    },
    {
      name: "Ashford College Dorm",
      subAreas: [
        { name: "Nadia Haddad's room", objects: [{ name: "bed" }, { name: "desk" }] },
        { name: "Felix Brandt's room", objects: [{ name: "bed" }, { name: "desk" }] },
        { name: "shared kitchen", objects: [{ name: "stove" }] },
      ],
    },
    { name: "Ashford College", subAreas: [{ name: "lab", objects: [{ name: "lab bench" }] }] },
  ],
});

const DATE = "2023-02-13";
const at = (hhmm: string) => `${DATE}T${hhmm}:00` as GameTime;
const hours = (i: { start: string; end: string }) =>
  (gameMinutes(i.end) - gameMinutes(i.start)) / 60;
const SLEEP = /\b(?:sleep|bed)\b/i;

async function nadia(deps: Deps): Promise<{ world: World; agent: Agent }> {
  const { world, id } = await coreWorld(deps, { name: "Ashford" });
  await replaceEnvironment(deps, id, TOWN);
  const { agent } = await createAgent(
    deps,
    id,
    CreateAgentInput.parse({
      id: "nadia",
      name: "Nadia Haddad",
      description: "Nadia Haddad is a physics student at Ashford College",
      home: "Ashford College Dorm",
      workplace: "Ashford College",
    }),
  );
  return { world, agent };
}

/** No waking item over 6 hours, items contiguous, and the same activity never at two places. */
function assertWellShaped(plan: DayPlan, when: string): void {
  plan.items.forEach((item, i) => {
    if (!SLEEP.test(item.description)) {
      assert.ok(hours(item) <= 6, `${when}: ${item.description} lasts ${hours(item)} h`);
    }
    if (i > 0) assert.equal(item.start, plan.items[i - 1].end, `${when}: item ${i} contiguous`);
    const before = plan.items[i - 2];
    if (before && before.description === item.description) {
      assert.equal(
        item.location,
        before.location,
        `${when}: "${item.description}" resumes in place`,
      );
    }
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] replanFrom() rewrites the rest of the day into proper items however often it re-plans; lunch cut short resumes at its cafe`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const { world, agent } = await nadia(deps);
      const { plan: first } = await makeDayPlan(deps, { world, agent }, { date: DATE });
      assertWellShaped(first, "the day plan");
      const lunch = first.items.find((i) => i.description === "have lunch")!;
      let plan = first;
      const friends = ["Felix", "Ayesha", "Jun", "Oskar", "Priya", "Lucia", "Theo"];
      for (
        const [n, time] of ["07:14", "10:40", "12:14", "12:50", "17:14", "21:00", "22:30"].entries()
      ) {
        const reason = `talked with ${friends[n]} about how things are going; ${
          friends[n]
        } said: “Nice catching up.”`;
        ({ plan } = await replanFrom(deps, { world, agent }, { from: at(time), reason }));
        assertWellShaped(plan, `after the ${time} re-plan`);
        const fresh = plan.items.filter((i) => i.start >= at(time));
        const { minItems } = remainderBounds(gameMinutes(at(time)) - gameMinutes(at("00:00")));
        assert.ok(fresh.length >= minItems, `${time}: ${fresh.length} items for the rest`);
        if (time === "12:14") {
          const resumed = fresh.filter((i) => i.description === "have lunch");
          assert.equal(resumed.length, 1, "lunch goes on after the talk");
          assert.equal(resumed[0].location, lunch.location, "at the cafe it began at");
          assert.equal(resumed[0].end, lunch.end);
        }
      }
      assert.ok(plan.items.at(-1)!.end <= at("23:30"), "the day still ends with going to bed");
      assert.equal(plan.replans.length, 7);
    },
  });
}

/** The offline model, with the re-plan's answer scripted and every day-plan input kept. */
function scriptedReplan(answer: (i: DayPlanInput) => unknown) {
  const inputs: DayPlanInput[] = [];
  const model = new OfflineLanguageModel({
    responders: {
      day_plan: (input) => {
        const i = input as DayPlanInput;
        inputs.push(i);
        return i.remainder === null ? answerDayPlan(i) : answer(i);
      },
    },
  });
  return { model, inputs };
}

Deno.test("replanFrom() keeps an interrupted activity at its place whatever the model says, sizes the rest by the hours left, and cuts stretched items to 6 hours", async () => {
  const { model, inputs } = scriptedReplan((i) => {
    if (i.remainder!.from !== "12:14") return answerDayPlan(i);
    const pub = i.places.findIndex((p) => p.name === "The Copper Kettle") + 1;
    return {
      wakeUp: i.remainder!.wakeUp,
      items: [
        { start: i.remainder!.from, durationMinutes: 30, description: "think it over", place: pub },
        { start: "12:44", durationMinutes: 16, description: "have lunch", place: pub },
        { start: "13:00", durationMinutes: 60, description: "work in the lab", place: 2 },
        { start: "22:00", durationMinutes: 60, description: "get ready for bed", place: 1 },
      ],
    };
  });
  await using deps = await makeTestDeps({ model });
  const { world, agent } = await nadia(deps);
  const { plan: first } = await makeDayPlan(deps, { world, agent }, { date: DATE });
  const lunch = first.items.find((i) => i.description === "have lunch")!;
  assert.equal(lunch.location, "Marigold Cafe");
  for (const [n, time] of ["07:20", "08:30", "09:30", "10:30", "11:30"].entries()) {
    const reason = `${["Ann", "Bo", "Cy", "Di", "Ed"][n]} waved`;
    await replanFrom(deps, { world, agent }, { from: at(time), reason });
  }
  const { plan } = await replanFrom(deps, { world, agent }, {
    from: at("12:14"),
    reason: "talked with Felix Brandt about the exam",
  });
  const sent = inputs.at(-1)!;
  assert.deepEqual(sent.remainder!.interrupted, {
    description: "have lunch",
    place: sent.places.findIndex((p) => p.name === "Marigold Cafe") + 1,
    until: "13:00",
  });
  assert.deepEqual(
    sent.remainder!.planned.slice(0, 2),
    [
      "12:14–13:00 at Marigold Cafe: have lunch",
      `13:00–17:00 at Ashford College: ${
        first.items.find((i) => i.start === at("13:00"))!.description
      }`,
    ],
    "the model sees the rest of the day as planned before, from the cut",
  );
  assert.deepEqual(
    [sent.minItems, sent.maxItems],
    [4, 8],
    "the rest of the day is sized by its 11¾ hours, not by what is left of 8 items",
  );
  const resumed = plan.items.find((i) => i.start === at("12:44"))!;
  assert.equal(resumed.description, "have lunch");
  assert.equal(resumed.location, "Marigold Cafe", "not the pub the model named");
  const lab = plan.items.filter((i) => i.description === "work in the lab");
  assert.equal(lab.length, 2, "the lab stretched to 22:00 is cut in two");
  assert.ok(lab.every((i) => hours(i) <= 6));
  assertWellShaped(plan, "after the scripted re-plan");
});

Deno.test("replanFrom() turns a directive of the inner voice into an item in the agent's own words", async () => {
  const { model, sent } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, agent } = await nadia(deps);
  await makeDayPlan(deps, { world, agent }, { date: DATE });
  const { plan } = await replanFrom(deps, { world, agent }, {
    from: at("15:00"),
    reason: "inner voice: I should go to Marigold Cafe and finish the problem set there.",
  });
  const prompt = sent.at(-1)!.prompt;
  const user = prompt.messages.at(-1)!.content as string;
  assert.match(user, /RESOLVE_DATA[^]*I should go to Marigold Cafe/);
  assert.doesNotMatch(user, /REASON_DATA/);
  assert.match(prompt.messages[0].content as string, /in their own words/);
  const item = plan.items.find((i) => i.start === at("15:00"))!;
  assert.equal(item.description, "go to Marigold Cafe and finish the problem set there");
  assert.equal(item.location, "Marigold Cafe", "at the place it names");
  assert.ok(plan.items.every((i) => !/inner voice|came up/.test(i.description)));
});

Deno.test({
  name: "re-plan tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
