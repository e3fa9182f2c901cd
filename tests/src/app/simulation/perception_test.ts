import assert from "node:assert/strict";
import type { Agent } from "../../../../src/domain/agent/agent.ts";
import type { AgentId } from "../../../../src/domain/ids.ts";
import { Environment } from "../../../../src/domain/world/environment.ts";
import { perceiveArea } from "../../../../src/app/simulation/perception.ts";

const env = Environment.parse({
  areas: [
    {
      name: "Hobbs Cafe",
      subAreas: [
        { name: "cafe", objects: [{ name: "counter" }, { name: "coffee machine", state: "off" }] },
        { name: "kitchen", objects: [{ name: "stove" }] },
      ],
    },
    {
      name: "Johnson Park",
      subAreas: [{ name: "lawn", objects: [{ name: "bench", state: "wet" }] }],
    },
  ],
});

function agent(id: string, location: string | null, action: string | null): Agent {
  return {
    id: id as AgentId,
    worldId: "w",
    name: id[0].toUpperCase() + id.slice(1),
    age: null,
    traits: [],
    description: "",
    createdAt: "2023-02-13T07:00:00",
    importanceSinceReflection: 0,
    pendingImportance: [],
    location,
    action,
    home: null,
    workplace: null,
    knownAreas: [],
  };
}

Deno.test("perceiveArea() sees agents and stateful objects in the same area only", () => {
  const me = agent("isabella", "Hobbs Cafe:cafe:counter", "serving coffee");
  const others = [
    me,
    agent("klaus", "hobbs cafe:kitchen:stove", "cooking lunch"),
    agent("maria", "Johnson Park:lawn:bench", "reading"),
    agent("sam", null, null),
  ];
  const { sightings, next } = perceiveArea(me, { others, env }, {});
  assert.deepEqual(sightings.map((s) => [s.subject, s.text, s.changed]), [
    ["a:klaus", "Klaus is cooking lunch", false],
    [
      "o:Hobbs Cafe:cafe:coffee machine",
      "the coffee machine in the cafe of Hobbs Cafe is off",
      false,
    ],
  ]);
  assert.deepEqual(sightings[0].observed, {
    agentId: "klaus",
    name: "Klaus",
    status: "cooking lunch",
  });
  assert.equal(sightings[1].location, "Hobbs Cafe:cafe:coffee machine");
  assert.deepEqual(next, {
    "a:klaus": "cooking lunch",
    "o:Hobbs Cafe:cafe:counter": "",
    "o:Hobbs Cafe:cafe:coffee machine": "off",
    "o:Hobbs Cafe:kitchen:stove": "",
  });
});

Deno.test("perceiveArea() reports only what entered the view or changed", async (t) => {
  const me = agent("isabella", "Hobbs Cafe:cafe:counter", "serving coffee");
  const klaus = agent("klaus", "Hobbs Cafe:kitchen:stove", "cooking lunch");
  const first = perceiveArea(me, { others: [me, klaus], env }, {});

  await t.step("nothing new, nothing seen", () => {
    const again = perceiveArea(me, { others: [me, klaus], env }, first.next);
    assert.deepEqual(again.sightings, []);
    assert.deepEqual(again.next, first.next);
  });
  await t.step("a changed action and a state set on a blank object are changes", () => {
    const burning = structuredClone(env);
    burning.areas[0].subAreas[1].objects[0].state = "burning";
    const seen = perceiveArea(me, {
      others: [me, { ...klaus, action: "washing up" }],
      env: burning,
    }, first.next);
    assert.deepEqual(seen.sightings.map((s) => [s.subject, s.changed]), [
      ["a:klaus", true],
      ["o:Hobbs Cafe:kitchen:stove", true],
    ]);
  });
  await t.step("an agent who left and came back is new again", () => {
    const gone = perceiveArea(me, {
      others: [me, { ...klaus, location: "Johnson Park:lawn:bench" }],
      env,
    }, first.next);
    assert.equal(gone.next["a:klaus"], undefined);
    const back = perceiveArea(me, { others: [me, klaus], env }, gone.next);
    assert.deepEqual(back.sightings.map((s) => [s.subject, s.changed]), [["a:klaus", false]]);
  });
  await t.step("an observer asleep or nowhere sees nothing and keeps what it saw", () => {
    const asleep = perceiveArea({ ...me, action: "sleeping" }, { others: [me, klaus], env }, {
      x: "y",
    });
    assert.deepEqual(asleep, { sightings: [], next: { x: "y" } });
    assert.deepEqual(
      perceiveArea({ ...me, location: null }, { others: [me, klaus], env: null }, {}).sightings,
      [],
    );
  });
});

const cafe = (spot: string) => `Hobbs Cafe:${spot}`;

/** The observer and a crowd of `n` awake people: half at its counter's room, half in the kitchen. */
function crowd(n: number): Agent[] {
  return Array.from({ length: n }, (_, i) =>
    agent(
      `guest${String(i).padStart(2, "0")}`,
      cafe(i % 2 === 0 ? "cafe:table" : "kitchen:stove"),
      "finding a seat",
    ));
}

Deno.test("perceiveArea() with attention perceives at most attentionBandwidth new events, nearest first", () => {
  const me = agent("isabella", cafe("cafe:counter"), "serving coffee");
  const others = [me, ...crowd(15)];
  const { sightings, next } = perceiveArea(
    me,
    { others, env, attention: { bandwidth: 3 } },
    {},
  );
  assert.equal(sightings.length, 3, "3 of 15 people and an object in view");
  for (const s of sightings) {
    assert.ok(s.observed, "people first: more salient than a coffee machine");
    assert.match(s.location, /^Hobbs Cafe:cafe:/, "the nearest: in its own room");
  }
  const attended = new Set(sightings.map((s) => s.subject));
  for (const other of others.slice(1)) {
    const subject = `a:${other.id}`;
    assert.equal(subject in next, attended.has(subject), "what it did not notice stays new");
  }
  const wide = perceiveArea(me, { others, env, attention: { bandwidth: 50 } }, {});
  assert.equal(wide.sightings.length, 16, "a wide bandwidth sees everyone and the machine");
});

Deno.test("perceiveArea() with attention: its own object and an action naming it always count", () => {
  const counter = structuredClone(env);
  counter.areas[0].subAreas[0].objects[0].state = "being wiped";
  const me = agent("isabella", cafe("cafe:counter"), "wiping the counter");
  const caller = agent("zed", cafe("kitchen:stove"), "calling out to Isabella");
  const others = [me, ...crowd(10), caller];
  const { sightings } = perceiveArea(
    me,
    { others, env: counter, attention: { bandwidth: 1 } },
    {},
  );
  const subjects = sightings.map((s) => s.subject);
  assert.ok(subjects.includes("o:Hobbs Cafe:cafe:counter"), "what its own action uses");
  assert.ok(subjects.includes("a:zed"), "someone addressing it, from the far room");
  assert.equal(sightings.length, 3, "beyond those, the bandwidth of one");
});

Deno.test("perceiveArea() with attention: a thing something changed outranks people; noticed later when the crowd thins", () => {
  const me = agent("isabella", cafe("cafe:counter"), "serving coffee");
  const others = [me, ...crowd(6)];
  const first = perceiveArea(me, { others, env, attention: { bandwidth: 2 } }, {});
  const burning = structuredClone(env);
  burning.areas[0].subAreas[1].objects[0].state = "burning";
  const seen = { ...first.next, "o:Hobbs Cafe:kitchen:stove": "" };
  const fire = perceiveArea(me, {
    others,
    env: burning,
    attention: { bandwidth: 1, routine: () => false },
  }, seen);
  assert.deepEqual(fire.sightings.map((s) => s.subject), ["o:Hobbs Cafe:kitchen:stove"]);
  const routine = perceiveArea(me, {
    others,
    env: burning,
    attention: { bandwidth: 1, routine: () => true },
  }, seen);
  assert.notDeepEqual(
    routine.sightings.map((s) => s.subject),
    ["o:Hobbs Cafe:kitchen:stove"],
    "a state an agent's use set is routine: people come first",
  );
  const unseen = others.slice(1).find((o) => !(`a:${o.id}` in first.next))!;
  const alone = perceiveArea(me, {
    others: [me, unseen],
    env,
    attention: { bandwidth: 2 },
  }, first.next);
  const later = alone.sightings.find((s) => s.subject === `a:${unseen.id}`);
  assert.equal(later?.changed, false, "someone not noticed in the crowd is new when noticed");
});
