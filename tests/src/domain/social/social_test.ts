import assert from "node:assert/strict";
import {
  bondsAfter,
  checkLore,
  LORE_BUDGET,
  matchLore,
  moodAt,
  moodBaseline,
  peopleOf,
  type SocialEvent,
  type WorldLoreEntry,
} from "../../../../src/domain/social/mod.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";

const BASE = { self: "Brom Hale", baseline: { valence: 0.05, arousal: 0.3 } };

function event(fields: Partial<SocialEvent>): SocialEvent {
  return {
    memoryId: "m1",
    kind: "chat",
    provenance: "told_by:Mara",
    description: 'Mara told me that "hello"',
    importance: 3,
    valence: 0,
    at: "2023-02-13T08:00:00",
    ...fields,
  };
}

Deno.test("peopleOf names the teller, the one spoken to and known people, never the agent", () => {
  const known = ["Ilse Varga", "Brom Hale"];
  assert.deepEqual(peopleOf(event({}), { self: "Brom Hale", known }), ["Mara"]);
  assert.deepEqual(
    peopleOf({ provenance: "self", description: 'Brom Hale said to Ilse Varga: "hi"' }, {
      self: "Brom Hale",
      known: [],
    }),
    ["Ilse Varga"],
  );
  assert.deepEqual(
    peopleOf({ provenance: "witnessed", description: "ilse varga fixed the gate for Brom Hale" }, {
      self: "Brom Hale",
      known,
    }),
    ["Ilse Varga"],
  );
  assert.deepEqual(
    peopleOf({ provenance: "witnessed", description: "Ilse Vargas is a stranger" }, {
      self: "Brom Hale",
      known,
    }),
    [],
    "whole words only",
  );
});

Deno.test("a favour raises trust and affinity by its importance; the agent's own words and neutral talk move neither", () => {
  const small = bondsAfter(null, [event({ valence: 0.6, importance: 2 })], BASE)!;
  const big = bondsAfter(null, [event({ valence: 0.6, importance: 9 })], BASE)!;
  assert.ok(big.relationships.mara.trust > small.relationships.mara.trust);
  assert.ok(small.relationships.mara.trust > 0);
  const said = bondsAfter(big, [
    event({ memoryId: "m2", provenance: "self", description: 'I told Mara: "thanks"', valence: 1 }),
    event({ memoryId: "m3", valence: 0 }),
  ], BASE)!;
  assert.equal(said.relationships.mara.trust, big.relationships.mara.trust);
  assert.ok(said.relationships.mara.affinity > big.relationships.mara.affinity, "own warmth");
  assert.equal(said.relationships.mara.familiarity, 2, "the agent's own line is no interaction");
  assert.deepEqual(said.relationships.mara.evidence, ["m1", "m2", "m3"]);
  const slight = bondsAfter(said, [event({ memoryId: "m4", valence: -1, importance: 8 })], BASE)!;
  assert.ok(slight.relationships.mara.trust < said.relationships.mara.trust);
});

Deno.test("a reflection about someone becomes the relationship's summary", () => {
  const met = bondsAfter(null, [event({})], BASE)!;
  assert.equal(met.relationships.mara.summary, null);
  const reflected = bondsAfter(met, [event({
    memoryId: "r1",
    kind: "reflection",
    provenance: "self",
    description: "Mara keeps her word and cares about the town",
  })], BASE)!;
  assert.equal(
    reflected.relationships.mara.summary,
    "Mara keeps her word and cares about the town",
  );
  assert.equal(reflected.relationships.mara.familiarity, 1);
});

Deno.test("the mood follows important memories and drifts back to the persona's baseline over game hours", () => {
  const baseline = moodBaseline({ traits: ["cheerful"], description: "a friendly baker" });
  assert.ok(baseline.valence > 0.2);
  assert.equal(
    bondsAfter(null, [event({ importance: 3, valence: -1, provenance: "witnessed" })], {
      ...BASE,
      baseline,
    })?.mood ?? null,
    null,
    "routine leaves the mood alone",
  );
  const hit = bondsAfter(null, [event({ importance: 9, valence: -1, provenance: "witnessed" })], {
    ...BASE,
    baseline,
  })!.mood!;
  const now = moodAt(hit, { baseline, at: "2023-02-13T08:00:00" });
  assert.ok(now.valence < -0.3 && now.label === "upset", JSON.stringify(now));
  assert.deepEqual(now.evidence, ["m1"]);
  const later = moodAt(hit, { baseline, at: "2023-02-13T14:00:00" });
  const much = moodAt(hit, { baseline, at: "2023-02-15T08:00:00" });
  assert.ok(later.valence > now.valence && later.valence < baseline.valence);
  assert.ok(Math.abs(much.valence - baseline.valence) < 0.01, "two days on, back to baseline");
  assert.equal(much.label, "calm");
  assert.equal(much.since, "2023-02-15T08:00:00");
});

const ENTRIES: WorldLoreEntry[] = [
  { id: "a", keys: ["Old Mill"], content: "A", knownBy: "all" },
  { id: "b", keys: ["mill"], secondaryKeys: ["cellar", "tunnel"], content: "B", knownBy: "all" },
  { id: "c", keys: ["mill"], content: "C", knownBy: ["ilse"] },
  { id: "d", keys: ["mill"], content: "D", knownBy: "all", minTrust: 0.5 },
  { id: "e", keys: [], constant: true, content: "E", knownBy: "all" },
];

Deno.test("lore matches keys as whole words in any case, secondary keys too, knownBy and minTrust, constant first", () => {
  const ids = (text: string, trust: number | null = null, agentId = "brom") =>
    matchLore(ENTRIES, { text, agentId, trust }).map((m) => m.entry.id);
  assert.deepEqual(ids("Have you been to the OLD MILL?"), ["e", "a"]);
  assert.deepEqual(ids("the millstone and the windmill"), ["e"], "no part-word match");
  assert.deepEqual(ids("the mill has a tunnel"), ["e", "b"]);
  assert.deepEqual(ids("the mill", null, "ilse"), ["e", "c"]);
  assert.deepEqual(ids("the mill", 0.4), ["e"]);
  assert.deepEqual(ids("the mill", 0.5), ["e", "d"]);
  const many = Array.from({ length: 10 }, (_, i) => ({
    id: `k${i}`,
    keys: ["mill"],
    content: `${i}`,
    knownBy: "all" as const,
  }));
  assert.equal(matchLore(many, { text: "mill", agentId: "x", trust: null }).length, LORE_BUDGET);
});

Deno.test("checkLore names the first bad entry by index", () => {
  const refused = (entries: unknown[]) => {
    try {
      checkLore(entries, { agentIds: new Set(["brom", "ilse"]) });
    } catch (err) {
      assert.ok(err instanceof SimulacraError);
      return [err.code, (err.details as { index: number }).index];
    }
    return null;
  };
  assert.equal(refused(ENTRIES), null);
  assert.deepEqual(refused([...ENTRIES, ENTRIES[0]]), ["unprocessable", 5]);
  assert.deepEqual(refused([{ ...ENTRIES[0], knownBy: ["nobody"] }]), ["unprocessable", 0]);
  assert.deepEqual(refused([ENTRIES[0], { ...ENTRIES[1], content: "y".repeat(2001) }]), [
    "unprocessable",
    1,
  ]);
  assert.deepEqual(refused([{ ...ENTRIES[0], minTrust: 2 }]), ["unprocessable", 0]);
});
