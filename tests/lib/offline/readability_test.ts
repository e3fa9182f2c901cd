/**
 * @module What a newcomer reads from the offline model, sampled from a real run of the example
 * town (every prompt kind a tick uses) plus a persona build and replies: short, no phrase said
 * twice, places that exist, observations that read as sentences.
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import { simulateTown } from "../../../src/eval/simulate_town.ts";
import type { AgentId, WorldId } from "../../../src/domain/ids.ts";
import { buildPersona } from "../../../src/app/persona/build_persona.ts";
import { respond } from "../../../src/app/persona/respond.ts";
import type { ActionsInput } from "../../../src/domain/prompts/actions.ts";
import type { DayPlanInput } from "../../../src/domain/prompts/day_plan.ts";
import { tickWorld } from "../../../src/app/simulation/tick_world.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";
import { TOWNS } from "../../../towns/mod.ts";

interface Sample {
  kind: string;
  input: unknown;
  value: unknown;
}

/** Every string in an answer, with its path. */
function texts(value: unknown, path = ""): [string, string][] {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => texts(v, `${path}[${i}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => texts(v, path ? `${path}.${k}` : k));
  }
  return [];
}

/** The first 4-word phrase that occurs twice in a text, or null. */
function repeatedPhrase(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const seen = new Set<string>();
  for (let i = 0; i + 4 <= words.length; i++) {
    const phrase = words.slice(i, i + 4).join(" ");
    if (seen.has(phrase)) return phrase;
    seen.add(phrase);
  }
  return null;
}

async function sampleTown(): Promise<Sample[]> {
  const deps = await makeTestDeps();
  const samples: Sample[] = [];
  const offline = new OfflineLanguageModel({ onUsage: (r) => deps.storage.usage.add(r) });
  deps.model = {
    info: offline.info,
    async complete(prompt, attribution) {
      const out = await offline.complete(prompt, attribution);
      samples.push({ kind: prompt.kind, input: prompt.input, value: out.value });
      return out;
    },
  };
  const { worldId } = await simulateTown(deps, {
    template: "smallville",
    catalog: TOWNS,
    hours: 12,
    seed: 3,
    tick: (d, w, o) => tickWorld(d, w, o),
    wallClock: () => 0,
  });
  const lucia = "lucia" as AgentId;
  await buildPersona(deps, { worldId: worldId as WorldId, agentId: lucia }, { save: true });
  const told = await respond(deps, {
    scope: { worldId: worldId as WorldId, agentId: lucia },
    input: {
      message: "I lost my red scarf at the park",
      speaker: { name: "Ada Lovelace" },
    },
  });
  for (const message of ["What did I lose?", "What are you planning at the cafe?"]) {
    await respond(deps, {
      scope: { worldId: worldId as WorldId, agentId: lucia },
      input: {
        message,
        conversationId: told.conversationId,
      },
    });
  }
  await deps.storage.close();
  return samples;
}

const samples = await sampleTown();

Deno.test("the offline model answers every prompt kind in a town run, a persona build and replies", () => {
  const kinds = new Set(samples.map((s) => s.kind));
  for (
    const kind of [
      "importance",
      "agent_summary",
      "day_plan",
      "item_plan",
      "actions",
      "reaction",
      "dialogue_line",
      "reflection_questions",
      "reflection_insights",
      "persona_build",
      "respond",
      "object_state",
    ]
  ) assert.ok(kinds.has(kind), `no sample of ${kind}`);
});

Deno.test("offline texts are short and never say a 4-word phrase twice", () => {
  const problems: string[] = [];
  for (const { kind, value } of samples) {
    // A persona's global summary restates its source; the rest is written by the offline mind.
    for (const [path, text] of texts(value)) {
      if (kind === "persona_build" && /global_summary|source_scenes|situation/.test(path)) continue;
      if (text.length > 400) problems.push(`${kind}.${path} is ${text.length} characters`);
      const again = repeatedPhrase(text);
      if (again !== null) problems.push(`${kind}.${path} repeats "${again}": ${text}`);
    }
  }
  assert.deepEqual(problems.slice(0, 10), []);
});

Deno.test("offline conversations do not repeat a line, and end", () => {
  const lines = samples.filter((s) => s.kind === "dialogue_line");
  assert.ok(lines.length >= 4);
  for (const { input, value } of lines) {
    const { history } = input as { history: { text: string }[] };
    const line = (value as { line: string }).line;
    assert.ok(!history.some((h) => h.text === line), `said twice: ${line}`);
  }
  assert.ok(lines.some((s) => (s.value as { end: boolean }).end));
});

Deno.test("offline actions happen at listed places of the planned area and read after 'is'", () => {
  const actions = samples.filter((s) => s.kind === "actions");
  assert.ok(actions.length > 10);
  for (const { input, value } of actions) {
    const i = input as ActionsInput;
    for (const a of (value as { actions: { description: string; location: number }[] }).actions) {
      const place = i.locations[a.location - 1];
      assert.ok(place !== undefined, `location ${a.location} of ${i.locations.length}`);
      // Others see "<name> is <description>": it must start with an -ing word.
      assert.match(a.description, /^\p{L}+ing\b/u, a.description);
    }
  }
  const plans = samples.filter((s) => s.kind === "day_plan");
  for (const { input, value } of plans) {
    const { places } = input as DayPlanInput;
    for (const item of (value as { items: { place: number }[] }).items) {
      assert.ok(item.place >= 1 && item.place <= places.length);
    }
  }
});

Deno.test("offline replies recall the scarf, and reflections cite what they paraphrase", () => {
  const replies = samples.filter((s) => s.kind === "respond").map((s) =>
    (s.value as { reply: string }).reply
  );
  assert.ok(replies.some((r) => /red scarf/.test(r)), replies.join(" | "));
  for (const { input, value } of samples.filter((s) => s.kind === "reflection_insights")) {
    const { memories, recalled } = input as { memories: string[]; recalled: number[][] };
    const { answers } = value as { answers: { insights: { evidence: number[] }[] }[] };
    answers.forEach(({ insights }, q) => {
      for (const { evidence } of insights) {
        for (const n of evidence) {
          assert.ok(n >= 1 && n <= memories.length);
          assert.ok(recalled[q].includes(n), "a memory recalled for its question");
        }
      }
    });
  }
});
