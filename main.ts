/** @module The Deno entry: `deno task start`. Serves the API and runs the minute cron. */
import { loadConfig } from "./lib/config.ts";
import { openKvStorage } from "./lib/kv/kv_storage.ts";
import { jsonLogger, type Logger } from "./lib/logger.ts";
import { type Services, wireServices } from "./services.ts";
import { startupBanner, startupFacts } from "./lib/startup_report.ts";
import { createApp } from "./routes/app.ts";
import type { Deps } from "./src/ports/mod.ts";
import { KvTickQueue } from "./lib/queues/kv_tick_queue.ts";
import { SimulacraError, VERSION } from "./src/domain/mod.ts";
import { type RepairReport, repairStore } from "./src/app/mod.ts";

/** Options for {@linkcode startServer}; tests replace the platform pieces. */
export interface StartServerOptions {
  logger?: Logger;
  /** Registers the minute cron. @default Deno.cron */
  cron?: (name: string, schedule: string, handler: () => Promise<void>) => unknown;
  /** Overrides the port (0 = any free port). */
  port?: number;
  /** Prints the start-up banner on a terminal. @default console.log */
  announce?: (banner: string) => void;
  /** Whether stdout is a terminal: a banner then, one JSON log line otherwise. @default Deno.stdout.isTerminal() */
  terminal?: boolean;
  /**
   * Where tick steps run: `kv` fans them out through Deno KV queues (embedded: a `queue.kv` file
   * beside the data, so queued steps survive a restart; hosted: the platform's default KV, which
   * Deno Deploy runs distributed); `off` steps every agent inside the tick's own call.
   * @default env SIMULACRA_TICK_QUEUE, else "kv"
   */
  tickQueue?: "kv" | "off";
}

/** A running server. */
export interface RunningServer {
  url: string;
  deps: Deps;
  /** The cron handler, as registered. */
  tick: () => Promise<void>;
  /** The start-up repair sweep, running in the background; resolves when it is done. */
  repaired: Promise<RepairReport | null>;
  shutdown(): Promise<void>;
}

/**
 * Loads the configuration, opens the services and serves the API. Without an admin key it
 * listens on 127.0.0.1 only.
 * @throws `config_error` with every bad variable named.
 */
export async function startServer(
  env: Record<string, string>,
  options: StartServerOptions = {},
): Promise<RunningServer> {
  const logger = options.logger ?? jsonLogger();
  const config = loadConfig(env, { runtime: "deno" });
  const queueKv = await openQueueKv(config, options.tickQueue ?? tickQueueMode(env));
  // On the hosted store, steps delivered together are handled together: their requests pipeline.
  const gather = config.storage.kind !== "embedded";
  const queue = queueKv ? new KvTickQueue(queueKv, { gather }) : undefined;
  let services: Services;
  try {
    services = await wireServices(config, {
      logger,
      openEmbedded: (dataDir, dimensions, { cacheBytes }) =>
        openKvStorage({ path: `${dataDir}/simulacra.kv`, dimensions, cacheBytes }),
      queue,
    });
  } catch (err) {
    queueKv?.close();
    throw err;
  }
  const { deps } = services;
  const listening = queue ? listenForTicks(services, queue, logger) : Promise.resolve();
  const app = createApp(deps, { ...services.app, logger, compress: true });
  const hostname = config.adminKey ? "0.0.0.0" : "127.0.0.1";
  const tick = async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    try {
      await services.tick(minute);
    } catch (err) {
      logger.log("error", "scheduled tick failed", { error: err });
    }
  };
  (options.cron ?? Deno.cron)("simulacra-tick", "* * * * *", tick);
  const server = Deno.serve(
    { port: options.port ?? config.port, hostname, onListen: () => {} },
    app.fetch,
  );
  const url = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${server.addr.port}`;
  const facts = startupFacts(config, deps, url);
  if (options.terminal ?? Deno.stdout.isTerminal()) {
    // deno-lint-ignore no-console
    (options.announce ?? console.log)(startupBanner(facts));
  } else {
    logger.log("info", `Simulacra ${VERSION} listening on ${url}`, { ...facts });
  }
  const repaired = startupRepair(deps, logger);
  return {
    url,
    deps,
    tick,
    repaired,
    async shutdown() {
      await repaired;
      await server.shutdown();
      // In order: the messages being handled finish (they send and store), then their KV
      // closes, then the store.
      await queue?.stop();
      queueKv?.close();
      await listening;
      await deps.storage.close();
    },
  };
}

function tickQueueMode(env: Record<string, string>): "kv" | "off" {
  const mode = env.SIMULACRA_TICK_QUEUE ?? "kv";
  if (mode !== "kv" && mode !== "off") {
    throw new SimulacraError(
      "config_error",
      `SIMULACRA_TICK_QUEUE must be "kv" or "off", not "${mode}"`,
    );
  }
  return mode;
}

async function openQueueKv(
  config: ReturnType<typeof loadConfig>,
  mode: "kv" | "off",
): Promise<Deno.Kv | null> {
  if (mode === "off") return null;
  if (config.storage.kind === "embedded") {
    await Deno.mkdir(config.storage.dataDir, { recursive: true });
    return await Deno.openKv(`${config.storage.dataDir}/queue.kv`);
  }
  return await Deno.openKv();
}

/**
 * Consumes tick messages in this process: each step runs as its own message (Deno Deploy spreads
 * them over isolates). A message whose handling throws (the store is down) is redelivered.
 */
function listenForTicks(services: Services, queue: KvTickQueue, logger: Logger): Promise<void> {
  return queue.listen(async (message) => {
    try {
      await services.consume(message);
    } catch (err) {
      logger.log("warn", "tick message failed; it will be redelivered", {
        kind: message.kind,
        worldId: message.worldId,
        tickId: message.tickId,
        error: err,
      });
      throw err;
    }
  }).catch((err) => {
    logger.log("error", "tick queue listener stopped", { error: err });
  });
}

/**
 * Sweeps the store once after start-up, in the background (requests are served meanwhile):
 * memories whose vector a crash lost are embedded again, orphan vectors deleted. Quick: only
 * agents whose memory and vector counts differ are swept. Failures are logged, never fatal:
 * `POST /v1/admin/repair` runs the full sweep on demand.
 */
async function startupRepair(deps: Deps, logger: Logger): Promise<RepairReport | null> {
  try {
    const report = await repairStore(deps, { quick: true });
    // Quiet when there was nothing to fix: the start-up stays one line.
    if (report.reembedded + report.orphanVectorsDeleted > 0) {
      logger.log("warn", "start-up repair fixed the store", { ...report });
    }
    return report;
  } catch (err) {
    logger.log("error", "start-up repair failed", { error: err });
    return null;
  }
}

if (import.meta.main) {
  try {
    await startServer(Deno.env.toObject());
  } catch (err) {
    if (err instanceof SimulacraError) {
      // deno-lint-ignore no-console
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
}
