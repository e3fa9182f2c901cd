/** @module What the server says when it starts: a banner on a terminal, one JSON line otherwise. */
import type { Deps } from "../src/ports/mod.ts";
import { VERSION } from "../src/domain/mod.ts";
import type { Config } from "./config.ts";

/** The facts of a start-up, as JSON log fields. No secrets. */
export interface StartupFacts {
  version: string;
  url: string;
  access: string;
  docs: string;
  playground: string;
  storage: string;
  model: string;
  offline: boolean;
  embedder: string;
  clock: string;
}

const TIME = "each real minute the cron advances every running world by its minutesPerTick; " +
  'a world created with clock {"mode": "manual"} moves only on POST /v1/worlds/{world}/tick';

/** Gathers the facts of a start-up from the configuration and the opened services. */
export function startupFacts(
  config: Config,
  deps: Pick<Deps, "model" | "embedder">,
  url: string,
): StartupFacts {
  const offline = deps.model.info.mode === "offline";
  const model = offline
    ? "offline: a rule-based stand-in, no API key (set OPENAI_API_KEY or OPENAI_BASE_URL for a real model)"
    : `${deps.model.info.main}, fast ${deps.model.info.fast}${
      config.model.mode === "openai" && config.model.baseURL
        ? ` at ${new URL(config.model.baseURL).host}`
        : ""
    }`;
  const e = deps.embedder.info;
  return {
    version: VERSION,
    url,
    access: config.adminKey
      ? "the admin key or an API key is required on /v1"
      : "no SIMULACRA_ADMIN_KEY: 127.0.0.1 and loopback Host names only, every request allowed; set one for API keys, rate limits and budgets",
    docs: `${url}/docs`,
    playground: `${url}/`,
    storage: config.storage.kind === "embedded"
      ? `embedded at ${config.storage.dataDir}`
      : `Upstash at ${new URL(config.storage.redisUrl).host}`,
    model,
    offline,
    embedder: `${e.model} (${e.mode}, ${e.dimensions} dimensions)`,
    clock: TIME,
  };
}

/** The short human-readable banner printed when stdout is a terminal. */
export function startupBanner(facts: StartupFacts): string {
  const rows: [string, string][] = [
    ["API", `${facts.url}  (${facts.access})`],
    ["Docs", facts.docs],
    ["Playground", facts.playground],
    ["Storage", facts.storage],
    ["Model", facts.offline ? `OFFLINE, ${facts.model.slice("offline: ".length)}` : facts.model],
    ["Embedder", facts.embedder],
    ["Time", facts.clock.replace("; ", ";\n              ")],
  ];
  return [
    `Simulacra ${facts.version}`,
    "",
    ...rows.map(([label, value]) => `  ${label.padEnd(12)}${value}`),
    "",
    "Request logs follow as JSON lines. Ctrl+C stops the server.",
  ].join("\n");
}
