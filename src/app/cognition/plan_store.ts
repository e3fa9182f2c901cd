/** @module Where plans live: the plan document per agent and date, and plan memories. */
import {
  addDays,
  type Agent,
  type AgentMoment,
  type AgentScope,
  DayPlan,
  emptyUsage,
  gameMinutes,
  GameTime,
  itemLine,
  PLAN_IMPORTANCE,
  PlanItem,
  PlannedAction,
  type Usage,
  weekdayOf,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, loadAgent } from "../agents/mod.ts";
import { type Deps, type DocumentKey, type FencedWrite, updateDocument } from "../../ports/mod.ts";
import { type NewMemory, prepareMemories, writeMemories } from "../memory/mod.ts";

export function planKey(worldId: string, agentId: string, date: string): DocumentKey {
  return { collection: "plans", scope: worldId, id: `${agentId}:${date}` };
}

/**
 * Creates or replaces the plan document with `next(current)`, retrying lost races; with a
 * `fence`, only while that lease is held (else `LeaseLostError`, nothing written).
 */
export async function writePlan(
  deps: Pick<Deps, "storage">,
  { key, fence }: { key: DocumentKey } & FencedWrite,
  next: (current: DayPlan | null) => DayPlan,
): Promise<DayPlan> {
  return (await updateDocument(deps.storage.documents, key, {
    change: next,
    fence,
    conflict: `Cannot store the plan "${key.id}": other writes kept changing it, retry shortly`,
  }))!;
}

/**
 * Stores a decomposition in the plan of the same revision. `apply` returns null when the plan
 * already has it (a concurrent request cached its own): that one is kept. Returns the stored
 * plan, or null when the plan was re-planned meanwhile.
 */
export async function cacheDecomposition(
  deps: Pick<Deps, "storage">,
  { key, revision, fence }: { key: DocumentKey; revision: number } & FencedWrite,
  apply: (plan: DayPlan) => DayPlan | null,
): Promise<DayPlan | null> {
  const stored = await updateDocument<DayPlan>(deps.storage.documents, key, {
    change: (current) =>
      !current || current.revision !== revision ? undefined : apply(current) ?? undefined,
    create: false,
    fence,
    conflict: `Cannot store the plan "${key.id}": other writes kept changing it, retry shortly`,
  });
  // A plan of another revision was re-planned meanwhile: the decomposition no longer fits.
  return stored?.revision === revision ? stored : null;
}

/**
 * Remembers broad items as `plan` memories: importance fixed, one embedding call, no completion;
 * fenced by `fence` when given.
 */
export async function rememberItems(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  agent: Agent,
  { plan, items, at, fence }: {
    plan: DayPlan;
    items: readonly PlanItem[];
    at: GameTime;
  } & FencedWrite,
): Promise<Usage> {
  if (items.length === 0) return emptyUsage();
  const memories: NewMemory[] = items.map((item) => ({
    description: `${agent.name}'s plan for ${weekdayOf(plan.date)} ${plan.date}, ${
      itemLine(plan.date, item, " at ")
    }`,
    kind: "plan",
    provenance: "self",
    at,
    importance: PLAN_IMPORTANCE,
    location: item.location,
  }));
  const prepared = await prepareMemories(deps, agent, { items: memories });
  await writeMemories(deps, { worldId: plan.worldId as WorldId, agentId: agent.id }, {
    prepared,
    fence,
  });
  return prepared.usage;
}

/**
 * The previous day's plan items (unless `items` is false: a re-plan has today's instead) and the
 * latest reflections before `at`.
 */
export async function previousDayNotes(
  deps: Pick<Deps, "storage">,
  { world, agent, at }: AgentMoment,
  { date, items = true }: { date: string; items?: boolean },
): Promise<string[]> {
  const yesterday = addDays(date, -1);
  // Read together: one round trip on the hosted backend.
  const [previous, reflections] = await Promise.all([
    items ? deps.storage.documents.get<DayPlan>(planKey(world.id, agent.id, yesterday)) : null,
    deps.storage.memories.list(
      { worldId: world.id as WorldId, agentId: agent.id },
      { kind: "reflection", limit: 10, order: "desc" },
    ),
  ]);
  return [
    ...(previous?.value.items.map((item) => `${yesterday} ${itemLine(yesterday, item)}`) ?? []),
    ...reflections.memories.filter((m) => m.createdAt <= at).slice(0, 3).map((m) => m.description),
  ];
}

/**
 * Records the action on the agent document (its location too), in the transaction that holds
 * the agent's lease; not when `at` is earlier than the world clock (looking back does not move
 * the agent).
 */
export async function recordAction(
  deps: Pick<Deps, "storage">,
  { world, agent, at }: AgentMoment,
  action: PlannedAction,
): Promise<void> {
  if (gameMinutes(at) < gameMinutes(world.clock.now)) return;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const doc = await loadAgent(deps, scope);
  if (doc.value.action === action.description && doc.value.location === action.location) return;
  const next = { ...doc.value, action: action.description, location: action.location };
  await deps.storage.documents.replace(agentKey(scope), next, { expectedVersion: doc.version });
}
