/** @module Private to cli/: the services a command runs on, wired from the environment. */
import { type Config, loadConfig } from "../lib/config.ts";
import { jsonLogger } from "../lib/logger.ts";
import { type EmbeddedOpener, wireServices } from "../services.ts";
import type { Deps } from "../src/ports/mod.ts";
import { SimulacraError } from "../src/domain/mod.ts";

/** How {@linkcode cliDeps} wires a command's services. */
export interface CliDepsOptions {
  /** Opens the embedded store. */
  openEmbedded: EmbeddedOpener;
  /** Changes the loaded configuration before wiring. @default none */
  adjust?: (config: Config) => Config;
}

/**
 * The configured services, logging warnings to `err`; null after writing to `err` why the
 * configuration cannot start them (the command then exits with 1).
 */
export async function cliDeps(
  env: Record<string, string>,
  err: (text: string) => void,
  options: CliDepsOptions,
): Promise<Deps | null> {
  try {
    const config = loadConfig(env, { runtime: "deno" });
    return (await wireServices(options.adjust?.(config) ?? config, {
      logger: jsonLogger({ level: "warn", write: (line) => err(`${line}\n`) }),
      openEmbedded: options.openEmbedded,
    })).deps;
  } catch (error) {
    if (!(error instanceof SimulacraError)) throw error;
    err(`${error.message}\n`);
    return null;
  }
}
