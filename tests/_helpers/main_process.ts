/** @module `main.ts` in a child process on a free port, for crash tests and benchmarks. */
import { OFFLINE_ENV } from "./offline_env.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A port nothing listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Resolves once `url`'s `/health` answers 200 (a server process starting up), or throws. */
export async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(`${url}/health`);
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    // Real time: a real server process starting up, polled until it answers.
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer /health`);
}

/** A running `main.ts`. */
export interface Server {
  url: string;
  /** Kills it with SIGKILL (no clean-up runs) and waits until it is gone. */
  kill(): Promise<void>;
}

/** Starts `main.ts` (offline unless `env` says otherwise) and waits until `/health` answers. */
export async function startMain(env: Record<string, string>): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: { ...OFFLINE_ENV, ...env, PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${url}/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch {
      // Real time: a real server process starting up, polled until it answers.
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
    },
  };
}
