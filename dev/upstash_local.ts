/**
 * @module `deno task upstash:local`: runs Upstash-compatible servers on this machine, so the
 * hosted backend works offline.
 *
 * It starts a throwaway `redis-server` on a free port (install it with
 * `apt-get install redis-server` or `brew install redis`; or pass `--redis-url redis://…` to use
 * one that is already running), an Upstash Redis REST gateway in front of it, and an in-memory
 * Upstash Vector server, then prints the four `export UPSTASH_…` lines to paste into the shell
 * that runs Simulacra. Ctrl-C stops everything; nothing is persisted. Options:
 * `--dimensions <n>` sets the vector index's dimension (default 384, the local embedder's; it
 * must equal SIMULACRA_EMBEDDING_DIMENSIONS), `--token <t>` fixes both tokens (default: random),
 * and `--redis-port` / `--vector-port` fix the REST ports (default: free ports).
 */
import { parseArgs } from "node:util";
import { type RedisServer, startRedisServer } from "./redis_server.ts";
import { startUpstashRedisGateway, type UpstashRedisGateway } from "./upstash_redis_gateway.ts";
import { startUpstashVectorServer, type UpstashVectorServer } from "./upstash_vector_server.ts";

/** What the command line asks for. */
export interface UpstashLocalOptions {
  /** A running Redis to use instead of starting one. */
  redisUrl?: string;
  /** The vector index's dimension. @default 384 */
  dimensions: number;
  /** The bearer token of both servers. @default a random one */
  token: string;
  /** The gateway's port. @default 0 (a free port) */
  redisPort: number;
  /** The vector server's port. @default 0 (a free port) */
  vectorPort: number;
}

/**
 * Parses the command line.
 *
 * @throws TypeError on an unknown option or a value that is not a number
 */
export function parseUpstashLocalArgs(args: readonly string[]): UpstashLocalOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      "redis-url": { type: "string" },
      dimensions: { type: "string", default: "384" },
      token: { type: "string" },
      "redis-port": { type: "string", default: "0" },
      "vector-port": { type: "string", default: "0" },
    },
    strict: true,
  });
  return {
    redisUrl: values["redis-url"],
    dimensions: integer("--dimensions", values.dimensions, 1),
    token: values.token ?? `dev-${crypto.randomUUID().replaceAll("-", "")}`,
    redisPort: integer("--redis-port", values["redis-port"], 0),
    vectorPort: integer("--vector-port", values["vector-port"], 0),
  };
}

function integer(name: string, raw: string, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`Cannot use ${name} "${raw}": give a whole number of at least ${min}`);
  }
  return value;
}

/** The running servers and the environment lines that point at them. */
export interface UpstashLocal {
  /** `UPSTASH_REDIS_REST_URL`, `…_TOKEN`, `UPSTASH_VECTOR_REST_URL`, `…_TOKEN`. */
  env: Record<string, string>;
  /** Where redis-server listens. */
  redisUrl: string;
  /** Stops the servers (and redis-server, if started here). */
  close(): Promise<void>;
}

/**
 * Starts redis-server (unless `redisUrl` is given), the REST gateway and the vector server.
 *
 * @throws Error when redis-server is missing or cannot be reached
 */
export async function startUpstashLocal(options: UpstashLocalOptions): Promise<UpstashLocal> {
  let redis: RedisServer | undefined;
  let gateway: UpstashRedisGateway | undefined;
  let vector: UpstashVectorServer | undefined;
  const close = async () => {
    await vector?.close();
    await gateway?.close();
    await redis?.close();
  };
  try {
    if (!options.redisUrl) redis = await startRedisServer();
    const redisUrl = options.redisUrl ?? redis!.url;
    gateway = await startUpstashRedisGateway({
      redisUrl,
      token: options.token,
      port: options.redisPort,
    });
    vector = await startUpstashVectorServer({
      token: options.token,
      dimensions: options.dimensions,
      port: options.vectorPort,
    });
    return {
      env: {
        UPSTASH_REDIS_REST_URL: gateway.url,
        UPSTASH_REDIS_REST_TOKEN: options.token,
        UPSTASH_VECTOR_REST_URL: vector.url,
        UPSTASH_VECTOR_REST_TOKEN: options.token,
      },
      redisUrl,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function main(args: readonly string[]): Promise<void> {
  let options: UpstashLocalOptions;
  let local: UpstashLocal;
  try {
    options = parseUpstashLocalArgs(args);
    local = await startUpstashLocal(options);
  } catch (error) {
    // deno-lint-ignore no-console
    console.error(`upstash:local: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
  const lines = [
    "# Upstash-compatible dev servers are running; Ctrl-C stops them. In the shell that runs Simulacra:",
    ...Object.entries(local.env).map(([name, value]) => `export ${name}=${value}`),
    `# redis-server: ${local.redisUrl}${
      options.redisUrl ? "" : " (started here; its data is lost on exit)"
    }`,
    `# vector index: ${options.dimensions} dimensions, COSINE, in memory (set SIMULACRA_EMBEDDING_DIMENSIONS=${options.dimensions})`,
  ];
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await local.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}

if (import.meta.main) await main(Deno.args);
