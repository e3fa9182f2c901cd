/** @module Private to cli/: where `deno task eval` reads and writes, and the in-memory services it runs on. */
import { openKvStorage } from "../lib/kv/kv_storage.ts";
import type { Services } from "../services.ts";
import { SimulacraError } from "../src/domain/mod.ts";
import { cliServices } from "./_cli_deps.ts";

/** The command's streams and files. */
export interface EvalIo {
  /** One line of stdout. */
  out(line: string): void;
  /** Raw text to stderr (no newline added). */
  err(text: string): void;
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
}

/**
 * The configured model and judge over an in-memory store (an evaluation is throwaway, whatever
 * storage is configured); null after writing why the configuration cannot start.
 */
export function evalServices(
  env: Record<string, string>,
  io: Pick<EvalIo, "err">,
  cacheMb: number,
): Promise<Services | null> {
  return cliServices(env, (text) => io.err(text), {
    adjust: (config) => ({
      ...config,
      storage: { kind: "embedded", dataDir: ":memory:", cacheMb },
    }),
    openEmbedded: (_dir, dimensions, options) => openKvStorage({ dimensions, ...options }),
  });
}

/**
 * Runs `work` on the services and closes their store: 0 when it finished, 1 after writing the
 * message of a failure the product reports (configuration, model, store, bad file).
 */
export async function runOnServices(
  services: Services,
  io: Pick<EvalIo, "err">,
  work: () => Promise<void>,
): Promise<number> {
  try {
    await work();
    return 0;
  } catch (error) {
    if (!(error instanceof SimulacraError)) throw error;
    io.err(`${error.message}\n`);
    return 1;
  } finally {
    await services.deps.storage.close();
  }
}
