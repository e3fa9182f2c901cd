/** @module The Cloudflare Workers entry: `fetch` serves the API, `scheduled` runs the minute cron. */
import { loadConfig } from "./lib/config.ts";
import { jsonLogger } from "./lib/logger.ts";
import { type Services, wireServices } from "./services.ts";
import { createApp } from "./routes/app.ts";
import { errorBody } from "./routes/errors.ts";
import { TickMessageSchema } from "./src/ports/mod.ts";
import { SimulacraError } from "./src/domain/mod.ts";
import { CloudflareTickQueue, isQueueProducer } from "./lib/queues/cloudflare_tick_queue.ts";

// The few Workers types this entry needs; @cloudflare/workers-types would replace Deno's globals.
interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
}
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  props: unknown;
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
  services: Services;
  /** Whether a Queue producer is bound: without it, tick messages cannot go on. */
  queued: boolean;
  fetch: (request: Request, ctx?: ExecutionContext) => Response | Promise<Response>;
}

const logger = jsonLogger();
// One set of services per isolate, built on first use from the bindings.
let running: Promise<Running> | undefined;

function start(env: WorkerEnv): Promise<Running> {
  running ??= (async () => {
    const config = loadConfig(env, { runtime: "workers" });
    // With the Queue bound (wrangler.toml), ticks fan their steps out through it.
    const queue = isQueueProducer(env.TICK_QUEUE)
      ? new CloudflareTickQueue(env.TICK_QUEUE)
      : undefined;
    const services = await wireServices(config, { logger, queue });
    const app = createApp(services.deps, {
      ...services.app,
      logger,
      // Cloudflare sets this header itself; a client cannot forge it past the edge.
      clientIpHeader: config.clientIpHeader ?? "cf-connecting-ip",
    });
    return {
      services,
      queued: queue !== undefined,
      // The context lets work after the answer (the audit entry) finish: ctx.waitUntil.
      fetch: (request: Request, ctx?: ExecutionContext) => app.fetch(request, {}, ctx),
    };
  })().catch((err) => {
    running = undefined; // a fixed secret takes effect on the next request
    throw err;
  });
  return running;
}

async function fetchHandler(
  request: Request,
  env: WorkerEnv,
  ctx?: ExecutionContext,
): Promise<Response> {
  try {
    return await (await start(env)).fetch(request, ctx);
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
  const { services } = await start(env);
  ctx.waitUntil(services.tick(controller.scheduledTime));
}

/**
 * Consumes a batch of tick messages (`max_batch_size` in wrangler.toml), all at once: their
 * steps share the isolate's services, so reads and commits that start together share one
 * storage request. A message whose handling throws (the store is down) is retried by the
 * platform after a pause; failing steps are retried and reported by the engine itself, so they
 * do not throw here.
 */
async function queueHandler(batch: MessageBatch, env: WorkerEnv): Promise<void> {
  const running = await start(env);
  await Promise.all(batch.messages.map((message) => consumeOne(running, message)));
}

async function consumeOne(running: Running, message: QueueMessage): Promise<void> {
  const parsed = TickMessageSchema.safeParse(message.body);
  if (!parsed.success || !running.queued) {
    message.ack(); // not ours, or no producer to continue with: nothing to retry
    return;
  }
  try {
    await running.services.consume(parsed.data);
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
