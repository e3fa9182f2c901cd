/**
 * @module Every prompt's output schema must pass OpenAI's structured-output converter in strict
 * mode. The client falls back to JSON mode (the schema only described in the prompt) when
 * `zodResponseFormat` refuses a schema, so a schema change that breaks strictness would
 * otherwise degrade answers silently. The table is checked against the files in `src/domain/prompts/`:
 * a new prompt module without a row fails here.
 */
import assert from "node:assert/strict";
import { zodResponseFormat } from "openai/helpers/zod";
import type { Prompt } from "../../../../src/ports/language_model.ts";

const PROMPTS_DIR = new URL("../../../../src/domain/prompts/", import.meta.url);

const place = { start: "13:00", end: "16:00", description: "work on the paper", place: "library" };
const memories = ["Klaus reads about gentrification", "Maria drinks coffee at Hobbs Cafe"];

/**
 * Inputs for each prompt module, keyed by file name; a module whose schema depends on its input
 * (a count, whether an agent is in view, a remainder of the day) has one input per variant.
 */
/** A game's registered action, for the variants of the prompts that offer them (issue 22). */
const gameActions = [{
  name: "give_item",
  description: "Hand an item over",
  parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
}];

const INPUTS: Record<string, unknown[]> = {
  actions: [undefined, gameActions].map((offered) => ({
    agentName: "Klaus Mueller",
    summary: "Klaus is a student.",
    date: "2023-02-13",
    item: "work on the paper",
    chunk: { start: "13:00", end: "14:00", description: "write the introduction" },
    locations: [{ path: "library:desk", state: "idle" }, { path: "library:shelf", state: "full" }],
    currentLocation: "library:desk",
    currentArea: "library",
    plannedArea: "library",
    ...(offered ? { gameActions: offered } : {}),
  })),
  agent_summary: [{
    agentName: "Klaus Mueller",
    identity: {
      description: ["Klaus Mueller is a student at Oak Hill College"],
      traits: ["curious"],
      home: null,
      workplace: null,
      background: "",
    },
    core: ["Klaus is curious"],
    occupation: ["Klaus studies sociology"],
    feeling: ["Klaus is hopeful"],
  }],
  day_plan: [null, {
    from: "12:00",
    wakeUp: "07:00",
    reason: "a fire",
    directive: null,
    done: ["breakfast"],
    interrupted: { description: "have lunch", place: 1, until: "13:00" },
    planned: ["13:00–17:00 at library: study"],
  }].flatMap(
    (remainder) =>
      [[], [{ description: "find the missing cat", priority: 5 }]].map((goals) => ({
        agentName: "Klaus Mueller",
        summary: "Klaus is a student.",
        date: "2023-02-13",
        weekday: "Monday",
        previousDay: ["went to the library"],
        comingUp: ["Maria invited Klaus to her party on Monday"],
        places: [{ name: "library", role: "workplace", contents: "desk, shelf" }],
        minItems: 4,
        maxItems: 8,
        remainder,
        goals,
      })),
  ),
  dialogue_line: [{
    speakerName: "Klaus Mueller",
    listenerName: "Maria Lopez",
    summary: "Klaus is a student.",
    now: "2023-02-13T13:00:00",
    memories,
    topic: "the paper",
    history: [{ speaker: "Maria Lopez", text: "Hi Klaus!" }],
    turn: 1,
    maxTurns: 8,
  }],
  importance: [1, 3].map((n) => ({
    agentName: "Klaus",
    observations: memories.concat("x").slice(0, n),
  })),
  item_plan: [undefined, gameActions].map((offered) => ({
    agentName: "Klaus Mueller",
    summary: "Klaus is a student.",
    date: "2023-02-13",
    item: place,
    before: "lunch",
    after: null,
    locations: [{ path: "library:desk", state: "idle" }, { path: "library:shelf", state: "full" }],
    currentLocation: "library:desk",
    currentArea: "library",
    ...(offered ? { gameActions: offered } : {}),
  })),
  object_state: [{
    items: [{
      object: "coffee machine",
      place: "Hobbs Cafe",
      state: "idle",
      agentName: "Isabella",
      action: "brewing coffee",
    }],
  }],
  persona_build: [{
    agentName: "Isabella Rodriguez",
    description: "Runs Hobbs Cafe.",
    traits: ["friendly"],
    memories,
    narrative: null,
    card: { personality: "warm", scenario: "a cafe", examples: "" },
  }],
  reaction: [null, { name: "Eddy Lin", status: "taking a walk" }].map((observed) => ({
    agentName: "John Lin",
    summary: "John runs the pharmacy.",
    now: "2023-02-13T16:56:00",
    currentAction: "reading the newspaper",
    observations: ["Eddy Lin is taking a walk"],
    observed,
    relationship: ["Eddy Lin is John Lin's son"],
    context: [],
  })),
  judge_knowledge: [
    { kind: "fact", fact: "Lucia hosts a party" },
    {
      kind: "event",
      place: "Marigold Cafe",
      from: "2023-02-14T17:00:00",
      to: "2023-02-14T19:00:00",
    },
    { kind: "people", candidates: ["Maria Lopez"] },
  ].map((target) => ({ agent: "Klaus", question: "Do you know?", answer: "Yes.", target })),
  judge_ranking: [{
    character: "Klaus",
    question: "What are you working on?",
    answers: [{ id: "A", text: "My paper." }, { id: "B", text: "Nothing." }],
  }],
  judge_score: ["MA-SI", "MB-AL", "ME-HLE"].map((metric) => ({
    metric,
    character: { name: "Klaus", profile: "a student" },
    probe: "Who are you?",
    answer: "I'm Klaus.",
    comparison: { label: "anonymised", text: "I'm the character." },
  })),
  reflection_insights: [{
    agentName: "Klaus",
    questions: ["What does Klaus care about?", "Who is Maria?"],
    memories,
    recalled: [[1], [2, 1]],
  }],
  reflection_questions: [{ agentName: "Klaus", memories, count: 3 }],
  respond: [undefined, gameActions].map((offered) => ({
    agentName: "Isabella Rodriguez",
    mode: "chat",
    speaker: { name: "A reporter", description: null },
    now: "2023-02-13T07:00:00",
    anchor: {
      summary: "Runs Hobbs Cafe.",
      nickname: "Izzy",
      globalSummary: "Owner of Hobbs Cafe.",
      coreTraits: [{ trait: "hospitable", desc: "Welcomes everyone" }],
      relationships: [],
    },
    facets: [],
    memories: [],
    plan: [],
    cardNotes: [],
    history: [],
    message: "How is the cafe?",
    boundaryHints: [],
    disclosure: false,
    ...(offered ? { gameActions: offered } : {}),
  })),
  respond_plain: [{
    agentName: "Isabella Rodriguez",
    mode: "chat",
    speaker: { name: "A reporter", description: null },
    now: "2023-02-13T07:00:00",
    anchor: {
      summary: "Runs Hobbs Cafe.",
      nickname: "Izzy",
      globalSummary: "Owner of Hobbs Cafe.",
      coreTraits: [{ trait: "hospitable", desc: "Welcomes everyone" }],
      relationships: [],
    },
    facets: [],
    memories: [],
    plan: [],
    cardNotes: [],
    history: [],
    message: "How is the cafe?",
    boundaryHints: [],
    disclosure: false,
  }],
};

type PromptBuilder = (input: unknown) => Prompt<unknown>;

/**
 * Files of the prompts folder that are not a prompt: the prompt shape, the shared data-block
 * helpers and the entry module.
 */
const NOT_PROMPTS = new Set(["prompt.ts", "data_block.ts", "mod.ts"]);

/** The prompt modules in the prompts folder (helpers start with "_"), by name without ".ts". */
async function promptModules(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(PROMPTS_DIR)) {
    if (
      entry.isFile && entry.name.endsWith(".ts") && !entry.name.startsWith("_") &&
      !NOT_PROMPTS.has(entry.name)
    ) {
      names.push(entry.name.slice(0, -3));
    }
  }
  return names.sort();
}

/** The module's one exported `build…Prompt` function. */
async function builderOf(name: string): Promise<PromptBuilder> {
  const module: Record<string, unknown> = await import(new URL(`${name}.ts`, PROMPTS_DIR).href);
  const builders = Object.entries(module).filter(([key, value]) =>
    /^build\w+Prompt$/.test(key) && typeof value === "function"
  );
  assert.equal(builders.length, 1, `${name}.ts exports one build…Prompt function`);
  return builders[0][1] as PromptBuilder;
}

Deno.test("every prompt module has a row in the strict-schema table, and every row a module", async () => {
  const modules = await promptModules();
  assert.ok(modules.length >= 12, `found ${modules.length} prompt modules`);
  assert.deepEqual(Object.keys(INPUTS).sort(), modules);
});

Deno.test("every prompt's output schema is accepted by zodResponseFormat in strict mode", async (t) => {
  for (const name of await promptModules()) {
    const build = await builderOf(name);
    for (const [variant, input] of (INPUTS[name] ?? []).entries()) {
      await t.step(`${name} #${variant + 1}`, () => {
        const prompt = build(input);
        assert.equal(prompt.kind, name, "the prompt's kind is its module's name");
        const format = zodResponseFormat(prompt.schema, prompt.kind);
        assert.equal(format.type, "json_schema");
        assert.equal(format.json_schema.strict, true);
        const schema = format.json_schema.schema as {
          type?: string;
          additionalProperties?: boolean;
        };
        assert.equal(schema.type, "object", "strict outputs need an object at the root");
        assert.equal(schema.additionalProperties, false);
      });
    }
  }
});
