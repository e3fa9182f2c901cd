/**
 * @module Where a tick lives while it runs: its marker (by tick id), the world's open tick (the
 * plan, until the close), each unit's stored result, and this process's copies of open plans.
 * Also what a runner is: in this process, or through the platform's queue.
 */
import type { Deps, DocumentKey, Storage } from "../../ports/mod.ts";
import type { Clocked, GameTime, TickBilling } from "../../domain/mod.ts";
import type { HeldLease } from "./lease.ts";
import {
  type FullTickSystem,
  type PhaseOutcome,
  type StepOutcome,
  type TickFrame,
  type TickMarker,
  type TickRecord,
} from "./tick_engine.ts";

/** The plan of a world's open tick, stored until it closes. */
export interface OpenTick<W> {
  tickId: string;
  world: W;
  from: GameTime;
  to: GameTime;
  minutes: number;
  /** Groups a phase runs at once (the tick's concurrency). */
  concurrency: number;
  /** Unit keys per message. */
  groups: string[][];
  shared: unknown;
  /** Wall-clock ms after which units that have not reported are recorded as failed. */
  deadlineAt: number;
  /** Units whose step failed are tried this many times in all. */
  maxAttempts: number;
  /**
   * The preparation's events and usage, for the close (plans stored before this field keep
   * them in the step results, as unit `_prepare`).
   */
  prepared?: PhaseOutcome;
  /** Who the tick's model calls count toward (see `RunTickOptions.billing`). */
  billing?: TickBilling;
}

/** A unit's stored result: what its step produced and what it left for `finish`. */
export interface UnitResult<S> {
  outcome: StepOutcome<S>;
  carried: unknown;
}

/** What a close found: the tick still open (not complete), or closed (by it or before). */
export type Closing<S> = { closed: false } | { closed: true; result: TickRecord<S> | null };

/** What a runner works with: the tick's system, and the world's tick lease, held. */
export interface RunnerContext<S> {
  // deno-lint-ignore no-explicit-any
  system: FullTickSystem<any, any, S, any>;
  held: HeldLease;
}

/**
 * Where a tick's steps run: in this process (`inlineRunner`) or in the invocations the
 * platform's queue starts (`queueRunner`). The plan and the close are the same either way.
 */
export interface TickRunner {
  /** Whether `start` runs the steps and closes the tick before it returns. */
  readonly inline: boolean;
  /** How long planning waits for the world's tick lease by default. */
  readonly waitMs: number;
  /** Wall-clock milliseconds since the epoch, for tick deadlines. */
  now(): number;
  /** The deadline of a tick planned now that may take `ms`. */
  deadlineAt(ms: number): number;
  /** Runs (or sends) the steps of a tick just planned, holding its tick lease. */
  start<S>(
    deps: Pick<Deps, "ids" | "storage" | "sleep">,
    open: OpenTick<Clocked>,
    context: RunnerContext<S>,
  ): Promise<Closing<S>>;
  /**
   * An open tick found while planning: brought to its close when this runner can (in process,
   * by stepping what is left; queued, once its deadline passed), else left open.
   */
  settle<S>(
    deps: Pick<Deps, "ids" | "storage" | "sleep">,
    open: OpenTick<Clocked>,
    context: RunnerContext<S>,
  ): Promise<Closing<S>>;
}

/** The world's open tick. */
export function openTickKey(worldId: string): DocumentKey {
  return { collection: "tick_open", scope: worldId, id: "current" };
}

/** Where a tick id's marker lives. */
export function markerScope(worldId: string): string {
  return `tick:${worldId}`;
}

/** How often an open tick is checked: closed when complete, lost steps sent again. */
export const CHECK_EVERY_MS = 20_000;

export { stepResults, stepScope } from "./step_results.ts";

/** The frame of an open tick's steps. */
export function frameOf<W extends Clocked>(open: OpenTick<W>): TickFrame<W> {
  return {
    world: open.world,
    tickId: open.tickId,
    from: open.from,
    to: open.to,
    minutes: open.minutes,
    concurrency: open.concurrency,
    ...(open.billing ? { billing: open.billing } : {}),
  };
}

/**
 * The world's open tick, or null. A record whose tick already closed (its closer stopped between
 * storing the result and removing the record) is removed here.
 */
export async function currentOpenTick<W, S>(
  deps: Pick<Deps, "storage">,
  worldId: string,
): Promise<OpenTick<W> | null> {
  const open = (await deps.storage.documents.get<OpenTick<W>>(openTickKey(worldId)))?.value;
  if (!open) return null;
  const marker = await deps.storage.idempotency.get<TickMarker<S>>(
    markerScope(worldId),
    open.tickId,
  );
  if (marker?.status !== "done" && marker?.status !== "failed") return open;
  await deps.storage.documents.delete(openTickKey(worldId));
  return null;
}

/** Plans kept per store (the least recently used dropped beyond this). */
const MAX_PLANS = 64;

/** A plan as this process keeps it, with what its system loaded with it (once read). */
interface KeptPlan {
  open: OpenTick<unknown>;
  loaded?: { value: unknown };
}

const plansByStore = new WeakMap<object, Map<string, KeptPlan>>();

function plansOf(deps: Pick<Deps, "storage">): Map<string, KeptPlan> {
  let plans = plansByStore.get(deps.storage);
  if (!plans) plansByStore.set(deps.storage, plans = new Map());
  return plans;
}

function planKey(worldId: string, tickId: string): string {
  return JSON.stringify([worldId, tickId]);
}

/** This process's copy of a plan, made the most recently used. */
function keptPlan(deps: Pick<Deps, "storage">, key: string): KeptPlan | undefined {
  const plans = plansOf(deps);
  const known = plans.get(key);
  if (known) {
    plans.delete(key); // most recently used last
    plans.set(key, known);
  }
  return known;
}

function keepPlan(deps: Pick<Deps, "storage">, key: string, kept: KeptPlan): void {
  const plans = plansOf(deps);
  plans.delete(key);
  plans.set(key, kept);
  if (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
}

/** Reads what a tick system's steps need of the store besides the plan (`TickSystem.load`). */
export type PlanLoad = (worldId: string, storage: Storage) => Promise<unknown>;

/** A tick's plan as a process holds it: the stored plan, and what its system loaded with it. */
export interface HeldPlan<W> {
  open: OpenTick<W>;
  /** What `load` read (undefined when none was asked for). */
  loaded: unknown;
}

/** Keeps the plan just stored (and what `load` reads, when read) so this process's steps read neither again. */
export function keepOpenTick(
  deps: Pick<Deps, "storage">,
  open: OpenTick<Clocked>,
  loaded?: { value: unknown },
): void {
  keepPlan(deps, planKey(open.world.id, open.tickId), { open, loaded });
}

/**
 * The plan of the tick `tickId` of a world: this process's copy, else the stored open tick
 * when it is that tick's (null when it is not: the tick closed, or never was); with `load`,
 * what the steps read besides, read with the plan (in one round trip on a hosted store) and
 * kept with it. A plan never changes while its tick is open, so the messages of a tick that
 * one process handles read it once. Whether the tick is still open is not known from here: a
 * step reads the world's clock in its unit of work, a close the marker.
 */
export async function readOpenTick<W>(
  deps: Pick<Deps, "storage">,
  worldId: string,
  { tickId, load }: { tickId: string; load?: PlanLoad },
): Promise<HeldPlan<W> | null> {
  const key = planKey(worldId, tickId);
  const known = keptPlan(deps, key);
  if (known && (!load || known.loaded)) {
    return { open: known.open as OpenTick<W>, loaded: known.loaded?.value };
  }
  const [open, loaded] = await Promise.all([
    known?.open ??
      deps.storage.documents.get<OpenTick<unknown>>(openTickKey(worldId)).then((d) => d?.value),
    load?.(worldId, deps.storage),
  ]);
  if (open?.tickId !== tickId) return null;
  keepPlan(deps, key, { open, loaded: load ? { value: loaded } : known?.loaded });
  return { open: open as OpenTick<W>, loaded };
}

/** What `load` reads for an open tick in hand: this process's copy, else read now and kept. */
export async function loadedFor(
  deps: Pick<Deps, "storage">,
  open: OpenTick<Clocked>,
  load: PlanLoad,
): Promise<unknown> {
  const key = planKey(open.world.id, open.tickId);
  const known = keptPlan(deps, key)?.loaded;
  if (known) return known.value;
  const loaded = await load(open.world.id, deps.storage);
  keepPlan(deps, key, { open, loaded: { value: loaded } });
  return loaded;
}

/** Drops this process's copy of a tick's plan (it closed). */
export function forgetOpenTick(
  deps: Pick<Deps, "storage">,
  worldId: string,
  tickId: string,
): void {
  plansOf(deps).delete(planKey(worldId, tickId));
}
