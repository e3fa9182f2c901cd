/**
 * @module What a ready-made town is, and the catalog of them a server offers. The towns' data
 * lives outside the core (the top-level `towns/` folder); the entry points pass the catalog in.
 */
import {
  type AgentId,
  type CreateAgentInput,
  type Environment,
  type GameTime,
  SimulacraError,
  type WorldTemplate,
} from "../../domain/mod.ts";

/**
 * A piece of news planted in one resident's seeds, whose spread a run measures: a memory
 * "mentions" it when its text matches every pattern of `allOf` and at least one of `anyOf`.
 */
export interface ScenarioFact {
  /** A short stable name: "party", "candidacy". */
  id: string;
  /** The resident who knows it from the start. */
  originator: AgentId;
  /** The fact in words, for reports. */
  description: string;
  allOf: readonly RegExp[];
  anyOf: readonly RegExp[];
}

/** A gathering a run checks attendance of: who is in `area` between `start` and `end`. */
export interface ScenarioEvent {
  host: AgentId;
  area: string;
  start: GameTime;
  end: GameTime;
}

/** Everything a template creates, validated. */
export interface Town {
  name: string;
  /** Where the clock starts unless the request names a start time. */
  startTime: GameTime;
  environment: Environment;
  agents: CreateAgentInput[];
  /** The seeded news whose diffusion is measured. */
  facts: ScenarioFact[];
  /** The party, for attendance. */
  party: ScenarioEvent;
}

/** One template's town: its description and the world archive built from it. */
export interface TownTemplate {
  /** The town as described (a fresh value every call). */
  town(): Town;
  /** The town as built from its description, as world archive lines (`deno task templates:build`). */
  archive: readonly string[];
}

/** The towns a server offers, by template name. */
export type TownCatalog = Readonly<Partial<Record<WorldTemplate, TownTemplate>>>;

/**
 * The catalog's town for `template`.
 * @throws `invalid_request` when the catalog does not offer it.
 */
export function offeredTown(towns: TownCatalog, template: WorldTemplate): TownTemplate {
  const offered = towns[template];
  if (offered) return offered;
  throw new SimulacraError(
    "invalid_request",
    `Cannot create a world from template "${template}": this server offers no such town`,
    { details: { template, offered: Object.keys(towns) } },
  );
}
