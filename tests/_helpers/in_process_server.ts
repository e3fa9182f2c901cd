/** @module `main.ts`'s startServer() in this process on a fresh data directory, for entry tests. */
import { silentLogger } from "../../lib/logger.ts";
import { type RunningServer, startServer, type StartServerOptions } from "../../main.ts";
import type { RequestTarget } from "./http_call.ts";

/** Options that keep a server quiet: a free port, no log lines, no banner, no cron. */
export const QUIET: StartServerOptions = {
  port: 0,
  logger: silentLogger,
  cron: () => {},
  announce: () => {},
};

/** Runs `run` with a fresh temporary data directory, and removes the directory afterwards. */
export async function withDataDir(run: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await Deno.makeTempDir();
  try {
    await run(dataDir);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

/**
 * Starts a server on a fresh data directory with `env` and {@linkcode QUIET} plus `options`, runs
 * `run` against it, then shuts it down and removes the directory.
 */
export function withServer(
  setup: { env?: Record<string, string>; options?: StartServerOptions },
  run: (server: RunningServer) => Promise<void>,
): Promise<void> {
  return withDataDir(async (dataDir) => {
    const server = await startServer({ SIMULACRA_DATA_DIR: dataDir, ...setup.env }, {
      ...QUIET,
      ...setup.options,
    });
    try {
      await run(server);
    } finally {
      await server.shutdown();
    }
  });
}

/** A running server as a {@linkcode RequestTarget}, so `call()` can speak to it over HTTP. */
export function overHttp(url: string): RequestTarget {
  return { request: (path, init) => fetch(`${url}${path}`, init) };
}
