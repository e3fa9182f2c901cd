/**
 * @module The example town ticked through the real server (`main.ts` in a child process, its
 * defaults: offline model, the Deno KV tick queue) on the hosted backend, Redis requests counted
 * at the local Upstash gateway per game hour. Shared by the busiest-hour bench and its pin.
 */
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { freePort, waitForHealth } from "./main_process.ts";
import { OFFLINE_ENV } from "./offline_env.ts";
import { TOWN_AGENTS } from "./town_storage_cost.ts";

/** One game hour's Redis traffic. */
export interface HourCost {
  /** `HH:00`. */
  hour: string;
  requests: number;
  commands: number;
  /** Requests per agent step (agents × 6 ticks). */
  perStep: number;
}

/** How to run {@linkcode meterServerHours}. */
export interface ServerHoursOptions {
  hours: number;
  /** Game time of day of the first tick, `HH:MM`. @default "07:00" */
  start?: string;
  /** Another checkout's directory whose `main.ts` runs. @default this one */
  root?: string;
  /**
   * Called with each request's commands (and the hour's index) during hour `hour` (0: the
   * first), or every hour without one.
   */
  trace?: { hour?: number; onRequest: (commands: string[], hour: number) => void };
}

/**
 * Creates the smallville template world and sends `POST …/tick` (10 minutes, waiting for the
 * steps, a busy answer asked again with the same tick id) `hours × 6` times, one after another.
 */
export async function meterServerHours(options: ServerHoursOptions): Promise<HourCost[]> {
  const root = options.root ?? new URL("../../", import.meta.url).pathname;
  let tracing: number | null = null;
  const redis = await startRedisServer();
  const gateway = await startUpstashRedisGateway({
    redisUrl: redis.url,
    token: "hours",
    onRequest: (commands) => tracing !== null && options.trace?.onRequest(commands, tracing),
  });
  const vector = await startUpstashVectorServer({ token: "hours", dimensions: 384 });
  const dataDir = await Deno.makeTempDir({ prefix: "simulacra-hosted-hours-" });
  const url = `http://127.0.0.1:${freePort()}`;
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}/main.ts`],
    cwd: root,
    env: {
      ...OFFLINE_ENV,
      PORT: new URL(url).port,
      SIMULACRA_DATA_DIR: dataDir,
      UPSTASH_REDIS_REST_URL: gateway.url,
      UPSTASH_REDIS_REST_TOKEN: "hours",
      UPSTASH_VECTOR_REST_URL: vector.url,
      UPSTASH_VECTOR_REST_TOKEN: "hours",
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const hours: HourCost[] = [];
  try {
    await waitForHealth(url);
    const world = await post(url, "/v1/worlds", {
      name: "Smallville",
      template: "smallville",
      startTime: `2023-02-13T${options.start ?? "07:00"}:00`,
    });
    const first = Number((options.start ?? "07:00").slice(0, 2));
    for (let tick = 0; tick < options.hours * 6; tick++) {
      const h = Math.floor(tick / 6);
      const hour = hours[h] ??= {
        hour: `${String((first + h) % 24).padStart(2, "0")}:00`,
        requests: 0,
        commands: 0,
        perStep: 0,
      };
      const traced = options.trace && (options.trace.hour ?? h) === h;
      tracing = traced ? h : null;
      const before = gateway.stats();
      await post(url, `/v1/worlds/${world.id}/tick`, { minutes: 10, tickId: `hours-${tick}` });
      const after = gateway.stats();
      hour.requests += after.requests - before.requests;
      hour.commands += after.commands - before.commands;
      hour.perStep = hour.requests / (TOWN_AGENTS * 6);
    }
  } finally {
    try {
      server.kill("SIGTERM");
    } catch {
      // already gone
    }
    await server.status;
    await gateway.close();
    await vector.close();
    await redis.close();
    await Deno.remove(dataDir, { recursive: true });
  }
  return hours;
}

/** Posts JSON; a busy tick (409 with Retry-After) is asked again with the same tick id. */
async function post(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  for (let attempt = 1;; attempt++) {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    const retry = Number(res.headers.get("retry-after"));
    if (res.status === 409 && retry > 0 && attempt < 30) {
      await new Promise((r) => setTimeout(r, retry * 1000));
      continue;
    }
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}
