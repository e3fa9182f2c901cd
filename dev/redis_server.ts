/** @module Starts a throwaway `redis-server` on a free local port, for tests and `deno task upstash:local`. */

/** Options for {@linkcode startRedisServer}. */
export interface StartRedisServerOptions {
  /** The redis-server executable. @default "redis-server" (found on PATH) */
  command?: string;
  /** How long to wait for the server to accept connections. @default 10_000 */
  timeoutMs?: number;
}

/** A running redis-server child process. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Stops the process and waits for it to exit. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Spawns `redis-server` on 127.0.0.1 and a free port, without persistence
 * (`--save "" --appendonly no`), and resolves once it answers PING.
 *
 * @throws Error when redis-server is not installed or does not start in time
 * @example
 * ```ts ignore
 * const redis = await startRedisServer();
 * try {
 *   console.log(redis.url); // redis://127.0.0.1:40123
 * } finally {
 *   await redis.close();
 * }
 * ```
 */
export async function startRedisServer(
  options: StartRedisServerOptions = {},
): Promise<RedisServer> {
  const command = options.command ?? "redis-server";
  const timeoutMs = options.timeoutMs ?? 10_000;
  // A free port can be taken between probing and binding; a second port usually works.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = freePort();
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(command, {
        args: [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
          "--loglevel",
          "warning",
        ],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new Error(
          `Cannot start "${command}": it is not installed or not on PATH; install it with \`apt-get install -y redis-server\` or use a running Redis (\`deno task upstash:local --redis-url redis://…\`)`,
          { cause: error },
        );
      }
      throw error;
    }
    let exited = false;
    const status = child.status.then((s) => {
      exited = true;
      return s;
    });
    try {
      await waitForPing(port, timeoutMs, () => exited);
    } catch (error) {
      lastError = error;
      if (!exited) child.kill("SIGKILL");
      await status;
      continue;
    }
    let closed = false;
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      async close() {
        if (closed) return;
        closed = true;
        if (!exited) child.kill("SIGTERM");
        await status;
      },
    };
  }
  throw new Error(`Cannot start "${command}": it did not accept connections`, {
    cause: lastError,
  });
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPing(port: number, timeoutMs: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const ping = new TextEncoder().encode("*1\r\n$4\r\nPING\r\n");
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`redis-server exited before listening on port ${port}`);
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        await conn.write(ping);
        const buf = new Uint8Array(64);
        const n = await conn.read(buf);
        // "-LOADING" means not ready yet; "+PONG" means ready.
        if (n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("+PONG")) return;
      } finally {
        conn.close();
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server did not answer PING on port ${port} within ${timeoutMs} ms`);
}
