// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module Storage cost of the example town on the hosted backend (issue 15): the 25-agent
 * smallville template ticked in 10-minute steps with the offline model, on Upstash clients →
 * the dev gateway → a redis-server of its own (commands counted by `INFO commandstats`, so those
 * inside scripts count) and the dev vector server. Prints Redis HTTP requests, commands and
 * Vector requests per agent step and per agent-day, and the commands by name. With `queued`, each
 * tick goes through the queue as a server with `TICK_QUEUE` runs it (`startTick`, then every
 * message delivered once, closes included) instead of in one process.
 *
 * Run with `deno run -A --lock=deno.dev.lock tests/bench/hosted_storage_cost.ts [hours=2] [start=08:00] [queued]`.
 */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/deps.ts";
import type { WorldId } from "../../src/ids.ts";
import { createWorldFromTemplate } from "../../src/templates/create_from_template.ts";
import { consumeTickMessage, startTick, tickWorld } from "../../src/simulation/tick_world.ts";
import { CreateWorldInput } from "../../src/world/world.ts";
import { startMeteredUpstash, type StorageCost } from "../_helpers/storage_meter.ts";
import { HeldQueue } from "../src/simulation/_held_queue.ts";

const hours = Number(Deno.args[0] ?? 2);
const start = Deno.args[1] ?? "08:00";
const queued = Deno.args[2] === "queued";
const meter = await startMeteredUpstash();
try {
  const deps: Deps = {
    storage: await meter.open(),
    model: new OfflineLanguageModel({}),
    embedder: new LocalEmbedder({ dimensions: 384 }),
    ids: new RandomIdSource(),
    sleep: abortableSleep,
  };
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({
      name: "Smallville",
      template: "smallville",
      startTime: `2023-02-13T${start}:00`,
    }),
  );
  const id = world.id as WorldId;
  const agents = 25;
  const ticks = hours * 6;
  const total: StorageCost = {
    redisRequests: 0,
    redisCommands: 0,
    byCommand: {},
    vectorRequests: 0,
    byVectorEndpoint: {},
  };
  for (let t = 0; t < ticks; t++) {
    const { cost } = await meter.measure(async () => {
      if (queued) await tickThroughQueue(deps, id);
      else await tickWorld(deps, id, { minutes: 10 });
    });
    total.redisRequests += cost.redisRequests;
    total.redisCommands += cost.redisCommands;
    total.vectorRequests += cost.vectorRequests;
    for (const [k, v] of Object.entries(cost.byCommand)) {
      total.byCommand[k] = (total.byCommand[k] ?? 0) + v;
    }
    for (const [k, v] of Object.entries(cost.byVectorEndpoint)) {
      total.byVectorEndpoint[k] = (total.byVectorEndpoint[k] ?? 0) + v;
    }
    // Progress on long runs: a line per game hour, to stderr so stdout stays the summary.
    if ((t + 1) % 6 === 0) {
      const done = agents * (t + 1);
      console.error(
        `hour ${(t + 1) / 6}/${hours}: ${(total.redisRequests / done).toFixed(2)} requests, ${
          (total.redisCommands / done).toFixed(1)
        } commands per step so far`,
      );
    }
  }
  const steps = agents * ticks;
  const perStep = (n: number) => (n / steps).toFixed(1);
  const perDay = (n: number) => Math.round((n / steps) * 144);
  console.log(
    `${
      queued ? "queued: " : ""
    }${agents} agents × ${ticks} ticks of 10 min from ${start} (${steps} agent steps)`,
  );
  console.log(
    `per agent step: ${perStep(total.redisRequests)} Redis requests, ${
      perStep(total.redisCommands)
    } commands, ${perStep(total.vectorRequests)} Vector requests`,
  );
  console.log(
    `per agent-day (×144 steps): ${perDay(total.redisRequests)} requests, ${
      perDay(total.redisCommands)
    } commands, ${perDay(total.vectorRequests)} Vector requests`,
  );
  const top = Object.entries(total.byCommand).sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(`commands: ${top.map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(`vector: ${JSON.stringify(total.byVectorEndpoint)}`);
  await deps.storage.close();
} finally {
  await meter.close();
}

/** A tick started on a queue, then each message sent delivered once until none is left. */
async function tickThroughQueue(deps: Deps, id: WorldId): Promise<void> {
  const queue = new HeldQueue();
  await startTick(deps, id, { minutes: 10, queue });
  for (let sent = queue.sent; sent.length > 0; sent = queue.sent) {
    queue.sent = [];
    for (const { message } of sent) await consumeTickMessage(deps, message, queue);
  }
}
