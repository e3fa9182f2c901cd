/**
 * @module The two ways a tick's steps run, passed to `planTick` by whoever starts the tick. In
 * process (the CLI, tests, `SIMULACRA_TICK_QUEUE=off`), the planner steps every group itself
 * while it holds the world's tick lease, then closes the tick. Through the platform's queue
 * (Deno KV, Cloudflare Queues), it sends one message per group and a delayed close check; the
 * consumer (`tick_messages.ts`) steps and closes.
 */
import type { Deps, TickQueue } from "../../ports/mod.ts";
import type { Clocked, WorldId } from "../../domain/mod.ts";
import type { TickRecord } from "./tick_engine.ts";
import { planTick, type PlanTickOptions, TICK_DEADLINE_MS } from "./tick_plan.ts";
import { mapBounded } from "./pool.ts";
import { closeTick } from "./tick_close.ts";
import { stepGroup } from "./tick_steps.ts";
import { CHECK_EVERY_MS, loadedFor, type TickRunner } from "./tick_store.ts";
import { awaitTick } from "./_tick_wait.ts";

/** How long a step in process waits for its unit's step lease (held by a step that crashed). */
const STEP_WAIT_MS = 10_000;

/**
 * Steps in this process. Its ticks hold the world from plan to close, so an open tick it finds
 * was abandoned (its holder stopped): it steps what is left of it and closes it. Its plans
 * have no deadline of their own (0: any deadline has passed) for the same reason.
 */
export function inlineRunner(): TickRunner {
  const runner: TickRunner = {
    inline: true,
    waitMs: 30_000,
    now: () => Number.POSITIVE_INFINITY,
    deadlineAt: () => 0,
    async start(deps, open, context) {
      const loaded = await loadedFor(deps, open, context.system.load);
      await mapBounded(
        open.groups.map((_, group) => group),
        open.concurrency,
        (group) =>
          stepGroup(deps, {
            system: context.system,
            open,
            loaded,
            group,
            final: true,
            stepWaitMs: STEP_WAIT_MS,
          }),
      );
      return await closeTick(deps, open, { ...context, now: runner.now });
    },
    settle: (deps, open, context) => runner.start(deps, open, context),
  };
  return runner;
}

/** Steps through the platform's queue, whose consumer calls `handleTickMessage`. */
export function queueRunner(queue: TickQueue): TickRunner {
  const now = () => queue.now();
  return {
    inline: false,
    waitMs: 5_000,
    now,
    deadlineAt: (ms) => now() + ms,
    async start(deps, open, context) {
      const { tickId } = open;
      const worldId = open.world.id;
      if (open.groups.length === 0) return await closeTick(deps, open, { ...context, now });
      await queue.send(
        open.groups.map((_, group) => ({ kind: "step", worldId, tickId, group, attempt: 1 })),
      );
      await queue.send([{ kind: "close", worldId, tickId }], { delayMs: CHECK_EVERY_MS });
      return { closed: false };
    },
    // Its steps may still be under way elsewhere until its deadline.
    settle: (deps, open, context) =>
      now() < open.deadlineAt
        ? Promise.resolve({ closed: false })
        : closeTick(deps, open, { ...context, now }),
  };
}

/**
 * Runs a tick to its end: planned, stepped and closed, in process unless `options.runner` sends
 * the steps through a queue (then it waits for the close, polling the tick's marker).
 * @throws as `planTick`; `conflict` when the tick is still open after its deadline.
 */
export async function runTick<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  worldId: WorldId,
  options: Omit<PlanTickOptions<U, P, S, W>, "runner"> & { runner?: TickRunner },
): Promise<TickRecord<S>> {
  const runner = options.runner ?? inlineRunner();
  const planned = await planTick(deps, worldId, { ...options, runner });
  if (planned.status === "done") return planned.result;
  // A queued close may take the whole deadline, and a little more to be noticed.
  const waitMs = runner.inline
    ? options.waitMs ?? runner.waitMs
    : (options.deadlineMs ?? TICK_DEADLINE_MS) + 30_000;
  return await awaitTick<S>(deps, worldId, { tickId: planned.tickId, waitMs });
}
