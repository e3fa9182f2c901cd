/** @module Private to cli/: the services a command runs on, wired from the environment. */
import { type Config, loadConfig } from "../lib/config.ts";
import { jsonLogger } from "../lib/logger.ts";
import { type EmbeddedOpener, type Services, wireServices } from "../services.ts";
import { SimulacraError } from "../src/domain/mod.ts";

/** How {@linkcode cliServices} wires a command's services. */
export interface CliServicesOptions {
  /** Opens the embedded store. */
  openEmbedded: EmbeddedOpener;
  /** Changes the loaded configuration before wiring. @default none */
  adjust?: (config: Config) => Config;
}

/**
 * The configured services (ports and ready-made towns), logging warnings to `err`; null after
 * writing to `err` why the configuration cannot start them (the command then exits with 1).
 */
export async function cliServices(
  env: Record<string, string>,
  err: (text: string) => void,
  options: CliServicesOptions,
): Promise<Services | null> {
  try {
    const config = loadConfig(env, { runtime: "deno" });
    return await wireServices(options.adjust?.(config) ?? config, {
      logger: jsonLogger({ level: "warn", write: (line) => err(`${line}\n`) }),
      openEmbedded: options.openEmbedded,
    });
  } catch (error) {
    if (!(error instanceof SimulacraError)) throw error;
    err(`${error.message}\n`);
    return null;
  }
}
