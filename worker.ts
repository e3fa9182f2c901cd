/** @module The Cloudflare Workers entry: `fetch` serves the API, `scheduled` runs the minute cron. */
import { loadConfig } from "./lib/config.ts";
import { jsonLogger } from "./lib/logger.ts";
import { openServices } from "./lib/services.ts";
import { meteredDeps } from "./lib/access/budget_meter.ts";
import { createApp } from "./routes/app.ts";
import { errorBody } from "./routes/errors.ts";
import type { Deps } from "./src/deps.ts";
import { runScheduledTick } from "./src/simulation/scheduled_tick.ts";
import { consumeTickMessage } from "./src/simulation/tick_world.ts";
import { TickMessageSchema } from "./src/ports/tick_message.ts";
import { SimulacraError } from "./src/errors.ts";
import { CloudflareTickQueue, isQueueProducer } from "./lib/queues/cloudflare_tick_queue.ts";

// The few Workers types this entry needs; @cloudflare/workers-types would replace Deno's globals.
interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
}
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}
interface QueueMessage {
  readonly body: unknown;
  readonly attempts: number;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}
interface MessageBatch {
  readonly messages: readonly QueueMessage[];
}
type WorkerEnv = Record<string, unknown>;

interface Running {
  deps: Deps;
  fetch: (request: Request) => Response | Promise<Response>;
}

const logger = jsonLogger();
// One set of services per isolate, built on first use from the bindings.
let running: Promise<Running> | undefined;

function start(env: WorkerEnv): Promise<Running> {
  running ??= (async () => {
    const config = loadConfig(env, { runtime: "workers" });
    const deps = await openServices(config, { logger });
    // With the Queue bound (wrangler.toml), ticks fan their steps out through it.
    if (isQueueProducer(env.TICK_QUEUE)) deps.queue = new CloudflareTickQueue(env.TICK_QUEUE);
    const app = createApp(deps, {
      adminKey: config.adminKey,
      keyRateLimit: config.keyRateLimit,
      auditRetentionDays: config.auditRetentionDays,
      corsOrigins: config.corsOrigins,
      logger,
      // Cloudflare sets this header itself; a client cannot forge it past the edge.
      clientIpHeader: config.clientIpHeader ?? "cf-connecting-ip",
    });
    return { deps: meteredDeps(deps), fetch: (request: Request) => app.fetch(request) };
  })().catch((err) => {
    running = undefined; // a fixed secret takes effect on the next request
    throw err;
  });
  return running;
}

async function fetchHandler(request: Request, env: WorkerEnv): Promise<Response> {
  try {
    return await (await start(env)).fetch(request);
  } catch (err) {
    const e = err instanceof SimulacraError
      ? err
      : new SimulacraError("internal_error", "Cannot start the service", { cause: err });
    logger.log("error", "start-up failed", { code: e.code, error: e });
    return Response.json(errorBody(e.code, e.message), {
      status: e.code === "store_unavailable" ? 503 : 500,
    });
  }
}

async function scheduledHandler(
  controller: ScheduledController,
  env: WorkerEnv,
  ctx: ExecutionContext,
): Promise<void> {
  const { deps } = await start(env);
  ctx.waitUntil(runScheduledTick(deps, controller.scheduledTime));
}

/**
 * Consumes a batch of tick messages (`max_batch_size` in wrangler.toml), all at once: their
 * steps share the isolate's services, so reads and commits that start together share one
 * storage request. A message whose handling throws (the store is down) is retried by the
 * platform after a pause; failing steps are retried and reported by the engine itself, so they
 * do not throw here.
 */
async function queueHandler(batch: MessageBatch, env: WorkerEnv): Promise<void> {
  const { deps } = await start(env);
  await Promise.all(batch.messages.map((message) => consumeOne(deps, message)));
}

async function consumeOne(deps: Deps, message: QueueMessage): Promise<void> {
  const queue = deps.queue;
  const parsed = TickMessageSchema.safeParse(message.body);
  if (!parsed.success || !queue) {
    message.ack(); // not ours, or no producer to continue with: nothing to retry
    return;
  }
  try {
    await consumeTickMessage(deps, parsed.data, queue);
    message.ack();
  } catch (err) {
    logger.log("warn", "tick message failed; it will be redelivered", {
      kind: parsed.data.kind,
      worldId: parsed.data.worldId,
      tickId: parsed.data.tickId,
      error: err,
    });
    message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
  }
}

export default { fetch: fetchHandler, scheduled: scheduledHandler, queue: queueHandler };
