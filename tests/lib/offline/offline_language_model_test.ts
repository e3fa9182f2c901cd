/** @module Tests of OfflineLanguageModel: the importance responder, registered responders and schema synthesis. */
import assert from "node:assert/strict";
import { answerImportance } from "../../../lib/offline/responders/importance.ts";
import { z } from "zod";
import {
  OfflineLanguageModel,
  registerOfflineResponder,
} from "../../../lib/offline/offline_language_model.ts";
import { rateImportance } from "../../../lib/offline/importance_lexicon.ts";
import { countChatTokens } from "../../../lib/openai/token_count.ts";
import { ModelUnavailableError } from "../../../src/domain/errors.ts";
import type { Prompt } from "../../../src/ports/language_model.ts";
import type { UsageRecord } from "../../../src/domain/usage.ts";
import { rejectionOf } from "../../_helpers/rejection.ts";

const Scores = z.object({ scores: z.array(z.number().int().min(1).max(10)) });
const attribution = { worldId: "w-offline", agentId: "isabella", operation: "test" };

function prompt<T>(kind: string, schema: z.ZodType<T>, input: unknown): Prompt<T> {
  return {
    kind,
    tier: "main",
    messages: [
      { role: "system", content: `[prompt:${kind}]\nAnswer as JSON.` },
      { role: "user", content: "Isabella Rodriguez is planning a Valentine's Day party." },
    ],
    schema,
    input,
  };
}

Deno.test("OfflineLanguageModel.info reports offline for both tiers", () => {
  assert.deepEqual(new OfflineLanguageModel().info, {
    mode: "offline",
    main: "offline",
    fast: "offline",
  });
});

Deno.test("OfflineLanguageModel.complete() rates a party invitation above brushing teeth", async () => {
  const observations = [
    "Klaus Mueller is brushing his teeth",
    "Isabella Rodriguez invited Klaus to her Valentine's Day party at Hobbs Cafe",
    "Maria Lopez is idle",
    "Tom Moreno heard that Sam is running in the local mayoral election",
    "John Lin ate breakfast",
    "Eddy Lin's grandfather died last night",
    "Jennifer broke up with her boyfriend",
  ];
  const { value } = await new OfflineLanguageModel().complete(
    prompt("importance", Scores, { observations }),
    attribution,
  );
  const [teeth, party, idle, election, breakfast, died, breakUp] = value.scores;
  assert.equal(value.scores.length, observations.length);
  assert.ok(party > teeth, `party ${party} vs teeth ${teeth}`);
  assert.ok(teeth <= 2 && idle <= 2 && breakfast <= 2);
  assert.ok(party >= 7 && election >= 7 && died >= 9 && breakUp >= 9);
  assert.equal(rateImportance("The sky is a pleasant shade of blue"), 3);
});

Deno.test("rateImportance() scores who someone is (work, home, family) as notable, and their day's routine low", () => {
  const facts = [
    "Lucia Ferreira owns Marigold Cafe and likes to know every regular by name",
    "Nadia Haddad is a physics student at Ashford College",
    "Walter Bergstrom is a retired carpenter who has lived in Smallville all his life",
    "Sofia Marchetti works for Lucia Ferreira and thinks of her as an older sister",
    "Rosa Delgado lives with her father, Miguel Delgado, and looks after him",
    "Tom is the lighthouse keeper of Gull Point",
  ];
  for (const fact of facts) {
    assert.ok(rateImportance(fact) >= 5, `${rateImportance(fact)}: ${fact}`);
  }
  const routine = [
    "Lucia Ferreira is working at the counter",
    "Nadia Haddad is studying at the desk",
    "Sofia Marchetti is serving customers",
    "Miguel Delgado is carrying on working",
  ];
  for (const act of routine) assert.ok(rateImportance(act) <= 2, `${rateImportance(act)}: ${act}`);
});

Deno.test("OfflineLanguageModel.complete() is deterministic", async () => {
  const model = new OfflineLanguageModel();
  const schema = z.object({
    plan: z.array(z.object({ time: z.string(), action: z.string() })).min(2).max(4),
  });
  const input = { name: "Isabella", day: "Wednesday", summary: "She runs Hobbs Cafe." };
  const a = await model.complete(prompt("daily_plan", schema, input), attribution);
  const b = await new OfflineLanguageModel().complete(
    prompt("daily_plan", schema, structuredClone(input)),
    attribution,
  );
  assert.deepEqual(a, b);
  const scoresA = await model.complete(
    prompt("importance", Scores, { observations: ["a fight broke out"] }),
    attribution,
  );
  const scoresB = await model.complete(
    prompt("importance", Scores, { observations: ["a fight broke out"] }),
    attribution,
  );
  assert.deepEqual(scoresA.value, scoresB.value);
});

Deno.test("OfflineLanguageModel.complete() synthesises schema-valid answers for kinds without a responder", async (t) => {
  const model = new OfflineLanguageModel();
  const input = { agent: "Klaus Mueller", memories: ["Klaus is writing a research paper"] };
  const cases: Record<string, z.ZodType> = {
    "nested arrays": z.object({
      insights: z.array(z.object({
        text: z.string().min(1),
        evidence: z.array(z.number().int().min(1)).min(1).max(5),
      })).max(5),
      questions: z.array(z.string()).length(3),
    }),
    "enums and literals": z.object({
      decision: z.enum(["continue", "react"]),
      kind: z.literal("reaction"),
      urgent: z.boolean(),
    }),
    "optional and nullable fields": z.object({
      say: z.string(),
      emoji: z.string().nullable().optional(),
      location: z.string().optional(),
      target: z.string().nullable(),
    }),
    "bounded integers and numbers": z.object({
      importance: z.number().int().min(1).max(10),
      minutes: z.number().int().positive().max(240),
      confidence: z.number().min(0).max(1),
      step: z.number().int().multipleOf(5).min(3).max(60),
    }),
    "strings with formats and lengths": z.object({
      id: z.uuid(),
      at: z.iso.datetime(),
      title: z.string().min(10).max(20),
    }),
    "records and tuples": z.object({
      tags: z.record(z.string(), z.number()),
      items: z.array(z.tuple([z.string(), z.number()])),
    }),
    "a discriminated union": z.discriminatedUnion("type", [
      z.object({ type: z.literal("move"), to: z.string() }),
      z.object({ type: z.literal("stay") }),
    ]),
  };
  for (const [name, schema] of Object.entries(cases)) {
    await t.step(name, async () => {
      const { value } = await model.complete(prompt("unregistered", schema, input), attribution);
      assert.ok(schema.safeParse(value).success, JSON.stringify(value));
    });
  }
  await t.step("strings come from the input's text", async () => {
    const { value } = await model.complete(
      prompt("unregistered", z.object({ say: z.string() }), input),
      attribution,
    );
    const inputWords = new Set(JSON.stringify(input).match(/[A-Za-z]+/g));
    assert.ok(value.say.split(" ").every((word) => inputWords.has(word)), value.say);
  });
});

Deno.test("OfflineLanguageModel.complete() throws model_invalid_output naming a kind it cannot satisfy", async () => {
  const schema = z.object({ n: z.number() }).refine((v) => v.n > 100, "n must exceed 100");
  const error = await rejectionOf(
    new OfflineLanguageModel().complete(prompt("needs_responder", schema, {}), attribution),
    ModelUnavailableError,
  );
  assert.equal(error.code, "model_invalid_output");
  assert.match(error.message, /"needs_responder"/);
  assert.equal((error.details as { kind: string }).kind, "needs_responder");
});

Deno.test("OfflineLanguageModel.complete() uses constructor responders before registered ones", async () => {
  const schema = z.object({ emoji: z.string() });
  registerOfflineResponder("test_emoji", () => ({ emoji: "☕" }));
  const registered = await new OfflineLanguageModel().complete(
    prompt("test_emoji", schema, {}),
    attribution,
  );
  assert.equal(registered.value.emoji, "☕");
  const own = await new OfflineLanguageModel({
    responders: { test_emoji: (input) => ({ emoji: (input as { e: string }).e }) },
  }).complete(prompt("test_emoji", schema, { e: "🎉" }), attribution);
  assert.equal(own.value.emoji, "🎉");
});

Deno.test("OfflineLanguageModel.complete() rejects a responder answer that breaks the schema", async () => {
  const model = new OfflineLanguageModel({ responders: { bad: () => ({ scores: [0] }) } });
  const error = await rejectionOf(
    model.complete(prompt("bad", Scores, {}), attribution),
    ModelUnavailableError,
  );
  assert.equal(error.code, "model_invalid_output");
  const issues = (error.details as { issues: { path: string }[] }).issues;
  assert.deepEqual(issues.map((i) => i.path), ["scores.0"]);
});

Deno.test("OfflineLanguageModel.complete() cuts a responder's strings that are longer than the schema allows", async () => {
  const schema = z.object({
    questions: z.array(z.string().trim().min(1).max(300)).length(2),
    cue: z.object({ phrase: z.string().max(80) }),
  });
  const long = `What about ${"the harbour lighthouse ".repeat(100)}?`;
  const model = new OfflineLanguageModel({
    responders: {
      long: () => ({ questions: ["Short?", long], cue: { phrase: "x".repeat(500) } }),
    },
  });
  const { value } = await model.complete(prompt("long", schema, {}), attribution);
  assert.equal(value.questions[0], "Short?");
  assert.ok(value.questions[1].length <= 300 && value.questions[1].endsWith("…"));
  assert.ok(value.questions[1].startsWith("What about the harbour lighthouse"));
  assert.equal(value.cue.phrase.length, 80);
});

Deno.test("OfflineLanguageModel.complete() wraps a failing responder as model_invalid_output", async () => {
  const error = await rejectionOf(
    new OfflineLanguageModel().complete(prompt("importance", Scores, { wrong: true }), attribution),
    ModelUnavailableError,
  );
  assert.equal(error.code, "model_invalid_output");
  assert.match(error.message, /"importance"/);
});

Deno.test("OfflineLanguageModel.complete() reports estimated usage with the attribution", async () => {
  const records: UsageRecord[] = [];
  const model = new OfflineLanguageModel({
    onUsage: (record) => {
      records.push(record);
    },
  });
  const p = prompt("importance", Scores, { observations: ["Klaus is reading"] });
  const { usage, model: name } = await model.complete(p, attribution);
  assert.equal(name, "offline");
  assert.equal(usage.calls, 1);
  assert.equal(usage.promptTokens, countChatTokens(p.messages));
  assert.ok(usage.completionTokens > 0);
  assert.deepEqual(records, [{ ...attribution, ...usage, model: "offline", estimated: true }]);
});

Deno.test("answerImportance() scores every observation from 1 to 10", () => {
  const { scores } = answerImportance({
    observations: ["", "!!!", "a wedding, a funeral and a fight at the party", "sleeping"],
  });
  assert.equal(scores.length, 4);
  assert.ok(scores.every((s) => Number.isInteger(s) && s >= 1 && s <= 10));
  assert.equal(scores[2], 10);
  assert.equal(scores[3], 1);
});

Deno.test("OfflineLanguageModel.complete() keys its choices by the seed, else the world, never by timing", async () => {
  const { buildDialogueLinePrompt } = await import("../../../src/domain/prompts/dialogue_line.ts");
  const records: UsageRecord[] = [];
  const model = new OfflineLanguageModel({ onUsage: (r) => void records.push(r) });
  const line = (worldId: string, seed?: number) =>
    model.complete(
      buildDialogueLinePrompt({
        speakerName: "Lucia Ferreira",
        listenerName: "Sofia Marchetti",
        summary: "Lucia runs Marigold Cafe.",
        now: "2023-02-13T08:10:00",
        memories: [],
        topic: null,
        history: [],
        turn: 1,
        maxTurns: 8,
      }),
      { worldId, agentId: "lucia", operation: "dialogue_line", seed },
    ).then((c) => c.value.line);
  // The same seed in two worlds says the same; the same world says the same every time.
  assert.equal(await line("w-a", 7), await line("w-b", 7));
  assert.equal(await line("w-a"), await line("w-a"));
  // Across seeds the phrasing varies (greetings are picked from three).
  const phrasings = new Set(await Promise.all([1, 2, 3, 4, 5, 6].map((s) => line("w-a", s))));
  assert.ok(phrasings.size > 1);
  assert.ok(records.every((r) => !("seed" in r)), "the ledger gets no seed");
});
