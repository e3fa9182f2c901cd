/** @module What one Magic-If turn reads and produces: the dialogue, each stage's output, the turn asked for. */
import type {
  Agent,
  BudgetReport,
  GameAction,
  GameTime,
  MemoryRecord,
  PersonaRecord,
  RespondMode,
  RespondPromptOutput,
  Usage,
  UsedLore,
  World,
} from "../../domain/mod.ts";
import type { FacetScore } from "../../mind/mod.ts";
import type { SocialContext } from "./_social_turn.ts";

/**
 * Which parts of the memory stream a reply may use (the paper's interview ablations):
 * everything; nothing (identity and description only); observations without reflections and
 * plans; everything but reflections.
 * @see Generative Agents §6–7; Park et al. 2023 §6 "Conditions".
 */
export type Ablation = "full" | "no_memory" | "no_reflection_no_plan" | "no_reflection";

/** A line said earlier in the dialogue. */
export interface Turn {
  speaker: string;
  text: string;
}

/** The anchor stage: who the character is before any cue. */
export interface AnchorStage {
  summary: string;
  /** "summary": the cached agent summary; "description": identity and description only. */
  source: "summary" | "description";
  coreTraits: string[];
  /** The agent's current action, when the engine set one and plans are not ablated. */
  doing: string | null;
  /** Today's stored day plan as lines ("08:00–12:00 work at the cafe (Hobbs Cafe)"), if any. */
  plan: string[];
}

/** A memory a reply used, and how it got there. */
export interface RecalledMemory {
  memory: MemoryRecord;
  /** Retrieval score, or null for lorebook knowledge pulled in by a key the dialogue said. */
  score: number | null;
  via: "retrieval" | "lore";
}

/** Everything one Magic-If turn produced, before anything is stored. */
export interface Enacted {
  value: RespondPromptOutput;
  /** `Name: (actions) words [thoughts]`. */
  reply: string;
  facets: FacetScore[];
  ranking: FacetScore[];
  memories: RecalledMemory[];
  hints: string[];
  budget: BudgetReport;
  /** World lore entries the prompt carried (issue 22). */
  lore: UsedLore[];
  usage: Usage;
}

/** Per-reply context every stage reads. */
export interface ReplyContext {
  world: World;
  agent: Agent;
  record: PersonaRecord | null;
  at: GameTime;
  ablation: Ablation;
  anchor: AnchorStage;
  /** Relationships, mood and lore (issue 22); absent: the prompt goes without them. */
  social?: SocialContext;
}

/** One turn to answer. */
export interface TurnRequest {
  mode: RespondMode;
  speaker: { name: string; description: string | null } | null;
  history: Turn[];
  message: string;
  /** The dialogue embedding (from the same call that embedded the facets). */
  vector: Float32Array | null;
  /** Cosine of the dialogue with each facet, in persona order. */
  relevance: number[];
  /** Whether retrieved memories are marked accessed (not for interviews). */
  touch: boolean;
  options: { facets: number; memories: number; tokenBudget: number };
  /** Receives the spoken words as the model writes them (streamed replies). */
  onWords?: (text: string) => void;
  /** The game's registered actions the agent may take in this turn; absent: none. */
  gameActions?: readonly GameAction[];
}
