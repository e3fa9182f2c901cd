/**
 * @module Decomposing just in time (Generative Agents §4.3): a broad plan item into hour chunks,
 * an hour chunk into 5–60-minute actions (the model calls are in mind/), each cached in the plan
 * document so later calls within the same hour cost nothing.
 */
import {
  type Agent,
  type AgentContext,
  checkProposedActions,
  clipLine,
  DayPlan,
  emptyUsage,
  type Environment,
  type GameAction,
  gameMinutes,
  type HourChunk,
  MAX_MINUTES,
  type PlannedAction,
  PROFILE_LINE_CHARS,
  type ProposedAction,
  type Usage,
  withChunk,
  withItem,
} from "../../domain/mod.ts";
import type { Deps, FencedWrite } from "../../ports/mod.ts";
import { decomposeChunk, decomposeItemFully } from "../../mind/mod.ts";
import { type AgentSummary, identityLine } from "./agent_summary.ts";
import { cacheDecomposition, planKey } from "./plan_store.ts";
import { loadGameActions } from "../game_hooks/mod.ts";

/** The summary's aspects a planning profile may show. */
export type ProfileAspect = "core" | "occupation";

/**
 * A planning profile: who the agent is (name, age, traits) and the summary's aspects that level
 * of the plan needs. Below the day plan, the broad item already fixes what the agent does and
 * why, so how it feels about recent progress adds little; the item plan (hour chunks and their
 * actions) keeps the core characteristics, which colour how an item is spent, and the actions of
 * an item of an hour or less only what the agent does day to day.
 */
export function planningProfile(
  agent: Agent,
  summary: AgentSummary,
  aspects: readonly ProfileAspect[],
): string {
  return [identityLine(agent), ...aspects.map((a) => clipLine(summary[a], PROFILE_LINE_CHARS))]
    .join("\n");
}

/** Which item of which plan to decompose, and where its planning profile comes from. */
export interface JustInTime extends FencedWrite {
  plan: DayPlan;
  /** The broad item's index in `plan.items`. */
  index: number;
  /** The planning profile with these aspects; asked for only when a model call is due. */
  profile: (aspects: readonly ProfileAspect[]) => Promise<string>;
}

/** A decomposed plan as stored (null when it was re-planned meanwhile), and what it cost. */
export interface Decomposed {
  plan: DayPlan | null;
  usage: Usage;
}

/**
 * The plan with the item at `index` decomposed into hour chunks: as it is when they are cached,
 * else one `plan.decompose` call for the chunks and their actions at places of `env`, cached in
 * the plan of the same revision. An item of an hour or less is its own single chunk, without a
 * call (the actions prompt decomposes it). With the game's registered actions, that call also
 * says which action is one of them, checked as {@linkcode withChunkActions} does.
 */
export async function withItemChunks(
  deps: Pick<Deps, "storage" | "model" | "ids">,
  ctx: AgentContext,
  { plan, index, profile, fence, env, gameActions: known }: JustInTime & {
    env: Environment | null;
    /** The world's registered actions, when the caller has them. @default read here */
    gameActions?: readonly GameAction[];
  },
): Promise<Decomposed> {
  const item = plan.items[index];
  if (item.chunks !== null) return { plan, usage: emptyUsage() };
  const short = gameMinutes(item.end) - gameMinutes(item.start) <= MAX_MINUTES;
  const made = short
    ? {
      chunks: [{ start: item.start, end: item.end, description: item.description, actions: null }],
      usage: emptyUsage(),
    }
    : await checkedItemPlan(deps, ctx, {
      env,
      plan,
      index,
      profile: await profile(["core", "occupation"]),
      gameActions: known ?? await loadGameActions(deps, ctx.world.id),
    });
  const cached = await cacheDecomposition(
    deps,
    { key: planKey(ctx.world.id, ctx.agent.id, plan.date), revision: plan.revision, fence },
    (p) => p.items[index].chunks === null ? withItem(p, index, { chunks: made.chunks }) : null,
  );
  return { plan: cached, usage: made.usage };
}

/** One `plan.decompose` call, each chunk's actions carrying the game actions that check out. */
async function checkedItemPlan(
  deps: Pick<Deps, "model" | "ids">,
  ctx: AgentContext,
  request: Parameters<typeof decomposeItemFully>[2] & { gameActions: readonly GameAction[] },
): Promise<{ chunks: HourChunk[]; usage: Usage }> {
  const made = await decomposeItemFully(deps, ctx, request);
  const chunks = made.chunks.map((chunk, c) => ({
    ...chunk,
    actions: withGameActions(deps, {
      actions: chunk.actions ?? [],
      proposed: made.proposed[c],
    }, request.gameActions),
  }));
  return { chunks, usage: made.usage };
}

/**
 * The plan with chunk `chunk` of the item at `index` decomposed into actions at places of `env`:
 * as it is when they are cached, else one `plan.actions` call whose actions are cached. With the
 * game's registered actions, that call also says which step is one of them: a step whose game
 * action checks out (registered name, arguments valid against its schema) carries it with a new
 * id; any other is kept apart with its reason, for an action.dropped event.
 */
export async function withChunkActions(
  deps: Pick<Deps, "storage" | "model" | "ids">,
  ctx: AgentContext,
  { plan, index, chunk: c, env, profile, fence, gameActions: known }: JustInTime & {
    /** The chunk's index in the item's `chunks`. */
    chunk: number;
    env: Environment | null;
    /** The world's registered actions, when the caller has them. @default read here */
    gameActions?: readonly GameAction[];
  },
): Promise<Decomposed> {
  if (plan.items[index].chunks![c].actions !== null) return { plan, usage: emptyUsage() };
  const gameActions = known ?? await loadGameActions(deps, ctx.world.id);
  const decomposed = await decomposeChunk(deps, ctx, {
    env,
    plan,
    index,
    chunk: c,
    profile: await profile(["occupation"]),
    gameActions,
  });
  const made = { ...decomposed, actions: withGameActions(deps, decomposed, gameActions) };
  const cached = await cacheDecomposition(
    deps,
    { key: planKey(ctx.world.id, ctx.agent.id, plan.date), revision: plan.revision, fence },
    (p) =>
      p.items[index].chunks?.[c]?.actions === null
        ? withChunk(p, { item: index, chunk: c }, made.actions)
        : null,
  );
  return { plan: cached, usage: made.usage };
}

/**
 * The actions, each with the game action proposed for it when that one checks out, or the
 * proposal that did not and why (the step is then announced as dropped, not silently lost).
 */
function withGameActions(
  deps: Pick<Deps, "ids">,
  made: { actions: readonly PlannedAction[]; proposed: readonly (ProposedAction | null)[] },
  registered: readonly GameAction[],
): PlannedAction[] {
  return made.actions.map((action, i) => {
    const proposal = made.proposed[i] ?? null;
    if (proposal === null || registered.length === 0) return action;
    const checked = checkProposedActions(registered, [proposal], {
      ids: () => deps.ids.next("act"),
    });
    const [kept] = checked.actions;
    if (kept !== undefined) return { ...action, gameAction: kept };
    const [dropped] = checked.dropped;
    return dropped === undefined ? action : { ...action, droppedGameAction: dropped };
  });
}
