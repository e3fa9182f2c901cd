/**
 * @module The interview battery: five categories of five questions, with the paper's ablations,
 * answered in character without writing any memory (Generative Agents §6–7; Park et al. 2023 §6, App. B).
 */
import { z } from "zod";
import {
  type Agent,
  type AgentScope,
  GameTime,
  MemoryId,
  type PersonaRecord,
  UsageCounts,
} from "../../domain/mod.ts";
import { loadAgent, loadPersonaRecord } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { getWorld } from "../world/mod.ts";
import type { Ablation } from "./magic_if.ts";
import { askInCharacter } from "./ask_in_character.ts";
import { UsedContext } from "./respond_schema.ts";

/** The five question categories. */
export const InterviewCategory = z
  .enum(["self_knowledge", "memory", "plans", "reactions", "reflections"])
  .meta({ id: "InterviewCategory" });
export type InterviewCategory = z.infer<typeof InterviewCategory>;

/** The body of `POST …/agents/{agent}/interview`. */
export const InterviewInput = z
  .strictObject({
    ablation: z
      .enum(["full", "no_memory", "no_reflection_no_plan", "no_reflection"])
      .default("full")
      .meta({
        description:
          "full; no_memory (nothing from the memory stream); no_reflection_no_plan (observations only); no_reflection",
      }),
    categories: z.array(InterviewCategory).min(1).max(5).optional().meta({
      description: "Default: all five",
    }),
    at: GameTime.optional().meta({
      description: "Game time of the interview; default: the world clock",
    }),
  })
  .meta({ id: "InterviewInput", example: { ablation: "no_reflection" } });
export type InterviewInput = z.input<typeof InterviewInput>;

/** One question and the agent's answer. */
export const InterviewAnswer = z.object({
  category: InterviewCategory,
  question: z.string(),
  answer: z.string().meta({ description: "`Name: …`, as respond formats it" }),
  bounded: z.boolean(),
  facets: z.array(z.object({ title: z.string(), score: z.number() })),
  memories: z.array(MemoryId),
  used: UsedContext,
});
export type InterviewAnswer = z.infer<typeof InterviewAnswer>;

/** The response of an interview. */
export const InterviewResult = z
  .object({
    ablation: z.enum(["full", "no_memory", "no_reflection_no_plan", "no_reflection"]),
    at: GameTime,
    names: z.array(z.string()).meta({
      description: "People from the agent's memory the questions name, most frequent first",
    }),
    transcript: z.array(InterviewAnswer),
    usage: UsageCounts,
  })
  .meta({ id: "InterviewResult" });
export type InterviewResult = z.infer<typeof InterviewResult>;

/** A name the agent has surely never met, for the question that checks it admits not knowing. */
const UNKNOWN_NAMES = ["Rowan Ashby", "Tobias Wren", "Ilse Marchetti"];
/** Last words that make a capitalised phrase a place or a day, not a person. */
const NOT_PERSON_WORD =
  /\b(?:Cafe|Café|College|University|School|Market|Pharmacy|Park|House|Home|Street|Road|Library|Bar|Pub|Store|Shop|Supply|Hall|Apartments?|Day|Eve|Town|City|Village|Church|Hospital|Office|Company|Club|Restaurant|Bakery|Garden|Room|Kitchen)$/;
/** Memories scanned for names. */
const NAME_SCAN = 500;

/**
 * The battery's questions, in our words, after the paper's Appendix B: `first` and `second`
 * are the people the agent deals with most, `stranger` a name it cannot know.
 */
export function interviewQuestions(
  names: { first: string | null; second: string | null; stranger: string },
): Record<InterviewCategory, string[]> {
  const who = (n: string | null, fallback: string) => (n === null ? fallback : `Who is ${n}?`);
  const them = names.first ?? "the person you have talked to most lately";
  return {
    self_knowledge: [
      "Tell me about yourself.",
      "What is your job?",
      "What are you into these days? What interests you?",
      "Who do you share your home with?",
      "Walk me through a normal weekday for you, roughly.",
    ],
    memory: [
      who(names.first, "Who is someone you met recently?"),
      `Who is ${names.stranger}?`,
      "What is the latest news around town?",
      "Has there been a celebration or get-together around here recently?",
      who(names.second, "Who did you last have a real conversation with?"),
    ],
    plans: [
      "What are you going to be doing at 6 in the morning today?",
      "What are you going to be doing at 6 in the evening today?",
      "What will you have just wrapped up at 1 in the afternoon today?",
      "What will you have just wrapped up at noon today?",
      "What are you going to be doing at 10 at night today?",
    ],
    reactions: [
      "Your breakfast is burning! What do you do?",
      "The bathroom is taken and you need it. What do you do?",
      "It is time to make dinner and the fridge is empty. What do you do?",
      "You see a friend walking down the street. What do you do or say?",
      "You notice a fire in the street. What do you do?",
    ],
    reflections: [
      "What inspires you most in life right now, and why?",
      `Given what you know about ${them}, what book do you think they would like, and why?`,
      `If you were choosing a birthday present for ${them}, what would you pick?`,
      `What would you say to ${them} to compliment them?`,
      "Of the people you have talked to lately, whom would you like to spend time with, and why?",
    ],
  };
}

/**
 * People the agent knows, most frequent first: those who told it things (`told_by`) count three
 * times, persona relationships twice, capitalised full names in its memories once. Its own name,
 * roles ("a reporter") and names of places and days ("Hobbs Cafe", "Valentine's Day") are left
 * out.
 */
export async function knownNames(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  { agent, record }: { agent: Agent; record: PersonaRecord | null },
): Promise<string[]> {
  const counts = new Map<string, number>();
  const own = new Set(agent.name.toLowerCase().split(/\s+/));
  const add = (name: string, weight: number) => {
    const clean = name.trim();
    const key = clean.toLowerCase();
    // Names start with a capital ("a reporter" or "the mayor" is a role, not someone to name).
    if (!/^\p{Lu}/u.test(clean) || /^(?:A|An|The) /.test(clean) || NOT_PERSON_WORD.test(clean)) {
      return;
    }
    if (key === agent.name.toLowerCase() || key.split(/\s+/).every((w) => own.has(w))) return;
    counts.set(clean, (counts.get(clean) ?? 0) + weight);
  };
  for (const r of record?.persona.relationships ?? []) add(r.name, 2);
  const page = await deps.storage.memories.list(scope, { limit: NAME_SCAN, order: "desc" });
  for (const m of page.memories) {
    if (m.provenance.startsWith("told_by:")) add(m.provenance.slice("told_by:".length), 3);
    for (const match of m.description.matchAll(/\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b/g)) {
      add(match[0], 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([n]) =>
    n
  );
}

/**
 * Interviews an agent: up to 25 questions, each answered by the Magic-If pipeline in interview
 * mode with the ablation's view of the memory stream. The anchor is made once and all questions
 * are embedded in one call; nothing is stored and no memory is marked accessed.
 *
 * Calls: one completion per question, one embedding call, plus the summary's calls when it
 * must be remade (not with `no_memory`).
 * @throws `world_not_found`, `agent_not_found`, `model_*`, `store_unavailable`.
 */
export async function interview(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  scope: AgentScope,
  body: InterviewInput,
): Promise<InterviewResult> {
  const input = InterviewInput.parse(body);
  const ablation: Ablation = input.ablation;
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const at = input.at ?? world.clock.now;
  const record = await loadPersonaRecord(deps, scope);
  const names = ablation === "no_memory" ? [] : await knownNames(deps, scope, { agent, record });
  const stranger = UNKNOWN_NAMES.find((n) => !names.includes(n)) ?? UNKNOWN_NAMES[0];
  const all = interviewQuestions({ first: names[0] ?? null, second: names[1] ?? null, stranger });
  const categories = input.categories ?? InterviewCategory.options;
  const questions = categories.flatMap((category) =>
    all[category].map((question) => ({ category, question }))
  );

  const base = { world, agent, record, at, ablation };
  const asked = await askInCharacter(deps, base, questions.map((q) => q.question));
  const transcript = asked.answers.map((enacted, i) => ({
    category: questions[i].category,
    question: questions[i].question,
    answer: enacted.reply,
    bounded: enacted.value.bounded,
    facets: enacted.facets.map((f) => ({ title: f.title, score: f.score })),
    memories: enacted.memories.map((r) => r.memory.id),
    used: { lore: enacted.lore },
  }));
  return { ablation, at, names: names.slice(0, 5), transcript, usage: asked.usage };
}
