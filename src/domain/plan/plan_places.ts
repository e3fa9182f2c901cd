/** @module Where plans happen: the places and locations an agent knows, offered to the planning prompts (Generative Agents §4.3, §5). */
import type { Agent } from "../agent/mod.ts";
import type { ActionLocation, DayPlanPlace } from "../prompts/mod.ts";
import {
  type Area,
  areaContents,
  areaOfPath,
  type Environment,
  findArea,
  joinPath,
} from "../world/mod.ts";

const MAX_PLACES = 30;
const MAX_LOCATIONS = 40;

/** The area of the agent's current location, if the environment has it. */
export function currentAreaOf(env: Environment, agent: Agent): Area | undefined {
  return agent.location ? findArea(env, areaOfPath(agent.location)) : undefined;
}

/**
 * The areas an agent knows, home and workplace first, then where it is, then the rest; all
 * areas when it knows none (it has to be somewhere). The current area comes with its objects
 * and their states (what the agent sees, which a re-plan may answer); the others with their
 * sub-areas only, which tell a day plan what a place is for at a fraction of the tokens: the day
 * plan picks areas, and the actions prompt offers the objects. Without an environment: the
 * agent's current location, or "unknown".
 */
export function knownPlaces(env: Environment | null, agent: Agent): DayPlanPlace[] {
  if (!env) return [{ name: agent.location ?? "unknown", role: "current", contents: "" }];
  const current = currentAreaOf(env, agent)?.name ?? null;
  const names = [agent.home, agent.workplace, current, ...(agent.knownAreas ?? [])];
  const areas: Area[] = [];
  for (const name of names) {
    const area = name ? findArea(env, name) : undefined; // older agents lack home, workplace
    if (area && !areas.includes(area)) areas.push(area);
  }
  return (areas.length > 0 ? areas : env.areas).slice(0, MAX_PLACES).map((area) => ({
    name: area.name,
    role: area.name === agent.home
      ? "home"
      : area.name === agent.workplace
      ? "workplace"
      : area.name === current
      ? "current"
      : "known",
    contents: area.name === current
      ? areaContents(area)
      : area.subAreas.map((sub) => sub.name).join(", "),
  }));
}

/**
 * Locations for actions: every path of the agent's known areas (home first) in the same order
 * on every call, then of the planned and current areas when they are not among them, at most 40,
 * with object states, leaving out rooms of private areas that are another resident's own ("Rosa's
 * bedroom" is not Miguel's). Over 40, known areas other than the planned and current ones go,
 * last first. Without an environment: the current location, or "unknown". The same order on
 * every call keeps the numbered list a stable prefix of the actions prompts (README "Prompt
 * caching"); the prompt lists it compactly, one room per line, so the choice stays this wide at
 * little cost.
 */
export function locationChoices(
  env: Environment | null,
  agent: Agent,
  plannedArea: string,
): ActionLocation[] {
  const fallback = [{ path: agent.location ?? "unknown", state: "" }];
  if (!env) return fallback;
  const wanted = [findArea(env, plannedArea), currentAreaOf(env, agent)];
  // Not `knownPlaces`: it lists the current area early, which would renumber the list.
  const names = [agent.home, agent.workplace, ...(agent.knownAreas ?? [])];
  const known = names.map((name) => name ? findArea(env, name) : undefined);
  const order = known.some((a) => a !== undefined) ? known : env.areas.slice(0, MAX_PLACES);
  const areas = [...new Set([...order, ...wanted].filter((a): a is Area => a !== undefined))];
  const lists = areas.map((area) => ({ area, paths: areaLocations(agent, area) }));
  let total = lists.reduce((n, l) => n + l.paths.length, 0);
  for (let i = lists.length - 1; i >= 0 && total > MAX_LOCATIONS; i--) {
    if (wanted.includes(lists[i].area)) continue;
    total -= lists[i].paths.length;
    lists.splice(i, 1);
  }
  const out = lists.flatMap((l) => l.paths);
  return out.length > 0 ? out.slice(0, MAX_LOCATIONS) : fallback;
}

/** An area's locations an agent may use, rooms of other residents left out. */
function areaLocations(agent: Agent, area: Area): ActionLocation[] {
  const out: ActionLocation[] = [];
  if (area.subAreas.length === 0) out.push({ path: area.name, state: "" });
  for (const sub of area.subAreas) {
    if (!area.common && someoneElses(agent, sub.name)) continue; // another resident's room
    if (sub.objects.length === 0) out.push({ path: joinPath(area.name, sub.name), state: "" });
    for (const o of sub.objects) {
      out.push({ path: joinPath(area.name, sub.name, o.name), state: o.state });
    }
  }
  return out;
}

/**
 * Where the agent sleeps: a bed at home (in a shared home its own room's, the room named for it;
 * else a bed in a room that is nobody's own, such as a couple's "bedroom"), else the first place
 * at home, else where it is.
 */
export function sleepLocation(env: Environment | null, agent: Agent): string {
  const home = env && agent.home ? findArea(env, agent.home) : undefined;
  if (!home) return agent.location ?? "unknown";
  const paths = locationChoices(env, { ...agent, location: null }, home.name)
    .map((l) => l.path)
    .filter((p) => areaOfPath(p) === home.name);
  const beds = paths.filter((p) => /\bbed\b/i.test(p));
  const own = beds.find((p) => ownRoom(agent, p.split(":")[1] ?? ""));
  return own ?? beds[0] ?? paths[0] ?? home.name;
}

/** A room named as someone's own: a possessive of a capitalised name ("Rosa's bedroom"). */
const OWN_ROOM = /\p{Lu}[\p{L}-]*['’]s\b/u;

/** Whether a sub-area is named for the agent: its full name or its first name, as words. */
function ownRoom(agent: Agent, subArea: string): boolean {
  const words = subArea.toLowerCase().split(/[^\p{L}-]+/u);
  const name = agent.name.toLowerCase().split(/\s+/);
  return subArea.toLowerCase().includes(agent.name.toLowerCase()) || words.includes(name[0]);
}

/**
 * Whether a sub-area is another resident's own room: named as someone's ("Rosa's bedroom",
 * "Daniel and Grace's bedroom") and not for this agent. Only rooms of areas that are not common
 * count: "Joe's bar" in a market hall is for everyone.
 */
export function someoneElses(agent: Agent, subArea: string): boolean {
  return OWN_ROOM.test(subArea) && !ownRoom(agent, subArea);
}

/**
 * A home for a newcomer who names none (an imported character): the first area with a bed that
 * no agent calls home (an inn's guest rooms), or null when every such area is someone's home.
 */
export function vacantLodging(env: Environment | null, homes: readonly string[]): string | null {
  if (!env) return null;
  const taken = new Set(homes.map((h) => h.toLowerCase()));
  const lodging = env.areas.find((area) =>
    !taken.has(area.name.toLowerCase()) &&
    area.subAreas.some((sub) => sub.objects.some((o) => /\bbed\b/i.test(o.name)))
  );
  return lodging?.name ?? null;
}
