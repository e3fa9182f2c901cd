/**
 * @module The example town ticked on the metered hosted backend: what its ticks cost in storage,
 * in process or through a queue. Shared by the storage cost bench and the whole-day pin.
 */
import type { Deps } from "../../src/ports/deps.ts";
import type { WorldId } from "../../src/domain/ids.ts";
import { consumeTickMessage, startTick, tickWorld } from "../../src/app/simulation/tick_world.ts";
import { createWorldFromTemplate } from "../../src/app/templates/create_from_template.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import { HeldQueue } from "../src/simulation/_held_queue.ts";
import type { MeteredUpstash, StorageCost } from "./storage_meter.ts";
import { makeTestDeps } from "./test_deps.ts";
import { TOWNS } from "../../towns/mod.ts";

/** The smallville template's agents. */
export const TOWN_AGENTS = 25;

/** How to tick the town. */
export interface TownTicks {
  /** 10-minute ticks to run. */
  ticks: number;
  /** Game time of day of the first tick, `HH:MM`. */
  start: string;
  /**
   * Through a queue (every message delivered once, closes included) instead of in process:
   * `one-by-one` as Workers consume it with `max_batch_size = 1` (one message per invocation),
   * `at-once` as a Deno KV queue's listener does (the messages sent together handled
   * concurrently in one process) or, with `batch`, as Workers handle batches of that size.
   */
  queued?: "one-by-one" | "at-once";
  /** With `at-once`: at most this many messages handled together. @default all sent together */
  batch?: number;
  /**
   * Called after each tick with its cost and, when queued one by one, the Redis requests of its
   * plan, of each step message (the last one closes the tick) and of each close check.
   */
  onTick?: (tick: number, cost: StorageCost, queued?: QueuedTickCost) => void;
}

/** Redis requests of a queued tick's parts. */
export interface QueuedTickCost {
  plan: number;
  steps: number[];
  checks: number[];
}

/** Creates the town on `meter`'s fresh storage, ticks it and returns the total cost. */
export async function meterTownTicks(meter: MeteredUpstash, run: TownTicks): Promise<StorageCost> {
  await using deps = await makeTestDeps({ storage: await meter.open() });
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({
      name: "Smallville",
      template: "smallville",
      startTime: `2023-02-13T${run.start}:00`,
    }),
    TOWNS,
  );
  const id = world.id as WorldId;
  const total = emptyCost();
  for (let t = 0; t < run.ticks; t++) {
    let detail: QueuedTickCost | undefined;
    const { cost } = await meter.measure(async () => {
      if (run.queued) {
        detail = await tickThroughQueue(deps, id, meter, {
          detail: run.onTick !== undefined,
          atOnce: run.queued === "at-once" ? run.batch ?? Infinity : 1,
        });
      } else await tickWorld(deps, id, { minutes: 10 });
    });
    addCost(total, cost);
    run.onTick?.(t, cost, detail);
  }
  return total;
}

function emptyCost(): StorageCost {
  return {
    redisRequests: 0,
    redisCommands: 0,
    byCommand: {},
    vectorRequests: 0,
    byVectorEndpoint: {},
  };
}

function addCost(total: StorageCost, cost: StorageCost): void {
  total.redisRequests += cost.redisRequests;
  total.redisCommands += cost.redisCommands;
  total.vectorRequests += cost.vectorRequests;
  for (const [k, v] of Object.entries(cost.byCommand)) {
    total.byCommand[k] = (total.byCommand[k] ?? 0) + v;
  }
  for (const [k, v] of Object.entries(cost.byVectorEndpoint)) {
    total.byVectorEndpoint[k] = (total.byVectorEndpoint[k] ?? 0) + v;
  }
}

/**
 * A tick started on a queue, then each message sent delivered once until none is left (the
 * messages sent together one by one, or `atOnce` at a time concurrently). With `detail` (one by
 * one only), returns what its parts cost.
 */
async function tickThroughQueue(
  deps: Deps,
  id: WorldId,
  meter: MeteredUpstash,
  options: { detail: boolean; atOnce: number },
): Promise<QueuedTickCost | undefined> {
  const queue = new HeldQueue();
  const detail = options.detail && options.atOnce === 1;
  const measure = async (work: () => Promise<unknown>) =>
    detail ? (await meter.measure(work)).cost.redisRequests : (await work(), 0);
  const tick: QueuedTickCost = {
    plan: await measure(() => startTick(deps, id, { minutes: 10, queue })),
    steps: [],
    checks: [],
  };
  for (let sent = queue.sent; sent.length > 0; sent = queue.sent) {
    queue.sent = [];
    for (let i = 0; i < sent.length; i += options.atOnce) {
      const batch = sent.slice(i, i + options.atOnce);
      const spent = await Promise.all(
        batch.map(({ message }) => measure(() => consumeTickMessage(deps, message, queue))),
      );
      batch.forEach(({ message }, j) =>
        (message.kind === "step" ? tick.steps : tick.checks).push(spent[j])
      );
    }
  }
  return detail ? tick : undefined;
}
