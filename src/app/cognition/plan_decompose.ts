/**
 * @module Decomposing just in time (Generative Agents §4.3): a broad plan item into hour chunks, an hour chunk
 * into 5–60-minute actions, one model call each.
 */
import { type Agent } from "../../domain/mod.ts";
import type { AgentContext } from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { type Usage } from "../../domain/mod.ts";
import { clipLine, PROFILE_LINE_CHARS } from "../../domain/mod.ts";
import { buildActionsPrompt } from "../../domain/mod.ts";
import { buildHourPlanPrompt } from "../../domain/mod.ts";
import { clockMinutes, clockTime } from "../../domain/mod.ts";
import { type Environment } from "../../domain/mod.ts";
import { type AgentSummary, identityLine } from "./agent_summary.ts";
import { currentAreaOf, locationChoices } from "../../domain/mod.ts";
import { fitSpans, splitEven } from "../../domain/mod.ts";
import { DayPlan, HourChunk, MAX_MINUTES, PlannedAction } from "../../domain/mod.ts";
import { minuteOfDay, timeAt } from "../../domain/mod.ts";

/** Which part of a plan to decompose, and the planning profile the prompt shows. */
export interface DecomposeRequest {
  plan: DayPlan;
  /** The broad item's index in `plan.items`. */
  index: number;
  profile: string;
}

/** A broad plan item decomposed into hour chunks that cover it: one model call. */
export async function decomposeItem(
  deps: Pick<Deps, "model">,
  { world, agent }: AgentContext,
  { plan, index, profile }: DecomposeRequest,
): Promise<{ chunks: HourChunk[]; usage: Usage }> {
  const item = plan.items[index];
  const lo = minuteOfDay(plan.date, item.start);
  const hi = minuteOfDay(plan.date, item.end);
  const completion = await deps.model.complete(
    buildHourPlanPrompt({
      agentName: agent.name,
      summary: profile,
      date: plan.date,
      item: {
        start: clockTime(lo),
        end: clockTime(hi),
        description: item.description,
        place: item.location,
      },
      before: plan.items[index - 1]?.description ?? null,
      after: plan.items[index + 1]?.description ?? null,
    }),
    { worldId: world.id, agentId: agent.id, operation: "plan.hour" },
  );
  const spans = fitSpans(
    completion.value.chunks.map((c) => ({
      start: clockMinutes(c.start),
      minutes: c.durationMinutes,
      value: c.description.trim(),
    })),
    { lo, hi, cover: true, maxMinutes: MAX_MINUTES },
  );
  const chunks =
    (spans.length > 0
      ? spans
      : splitEven({ start: lo, end: hi, value: item.description }, MAX_MINUTES))
      .map((s): HourChunk => ({
        start: timeAt(plan.date, s.start),
        end: timeAt(plan.date, s.end),
        description: s.value,
        actions: null,
      }));
  return { chunks, usage: completion.usage };
}

/**
 * A planning profile: who the agent is (name, age, traits) and the summary's aspects that level
 * of the plan needs. Below the day plan, the broad item already fixes what the agent does and
 * why, so how it feels about recent progress adds little; the hour plan keeps the core
 * characteristics, which colour how an item is spent, and the actions (the most frequent
 * planning call) only what the agent does day to day.
 */
export function planningProfile(
  agent: Agent,
  summary: AgentSummary,
  aspects: readonly ("core" | "occupation")[],
): string {
  return [identityLine(agent), ...aspects.map((a) => clipLine(summary[a], PROFILE_LINE_CHARS))]
    .join("\n");
}

/**
 * An hour chunk decomposed into actions that cover it, each at a place of the environment (when
 * the world has one): one model call.
 */
export async function decomposeChunk(
  deps: Pick<Deps, "model">,
  { world, agent }: AgentContext,
  { env, plan, index, chunk: c, profile }: DecomposeRequest & {
    env: Environment | null;
    /** The chunk's index in the item's `chunks`. */
    chunk: number;
  },
): Promise<{ actions: PlannedAction[]; usage: Usage }> {
  const item = plan.items[index];
  const chunk = item.chunks![c];
  const lo = minuteOfDay(plan.date, chunk.start);
  const hi = minuteOfDay(plan.date, chunk.end);
  const locations = locationChoices(env, agent, item.location);
  const currentArea = env ? currentAreaOf(env, agent)?.name ?? null : null;
  const completion = await deps.model.complete(
    buildActionsPrompt({
      agentName: agent.name,
      summary: profile,
      date: plan.date,
      item: item.description,
      chunk: { start: clockTime(lo), end: clockTime(hi), description: chunk.description },
      locations,
      currentLocation: agent.location,
      currentArea,
      plannedArea: item.location,
    }),
    { worldId: world.id, agentId: agent.id, operation: "plan.actions" },
  );
  const spans = fitSpans(
    completion.value.actions.map((a) => ({
      start: clockMinutes(a.start),
      minutes: a.durationMinutes,
      value: {
        description: a.description.trim(),
        location: locations[a.location - 1].path,
        emoji: a.emoji.replace(/\s+/g, ""),
      },
    })),
    { lo, hi, cover: true, maxMinutes: MAX_MINUTES },
  );
  const fallback = { description: chunk.description, location: locations[0].path, emoji: "🙂" };
  const actions =
    (spans.length > 0 ? spans : splitEven({ start: lo, end: hi, value: fallback }, MAX_MINUTES))
      .map((
        s,
      ): PlannedAction => ({
        start: timeAt(plan.date, s.start),
        end: timeAt(plan.date, s.end),
        ...s.value,
      }));
  return { actions, usage: completion.usage };
}
