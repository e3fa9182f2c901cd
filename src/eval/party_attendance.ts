/**
 * @module Coordination: who shows up at a gathering, from where agents were during a run.
 * @see Generative Agents §6–7 "coordination (invitees who show up)"; Park et al. 2023 §7.1 (5 of 12 invitees)
 */
import { areaOfPath, gameMinutes, type GameTime } from "../domain/mod.ts";

/** Where one agent was at one moment of a run (its location after a tick step). */
export interface LocationSample {
  at: GameTime;
  agentId: string;
  /** `Area:Sub-area:Object`, or null when unknown. */
  location: string | null;
}

/** A gathering: its host, the area it is in, and when. */
export interface Gathering {
  host: string;
  area: string;
  start: GameTime;
  end: GameTime;
}

/** Who came. */
export interface Attendance {
  /** Agents other than the host seen in the area during the gathering, in order of arrival. */
  attendees: string[];
  count: number;
  /** Whether the host was there too. */
  hostPresent: boolean;
}

/**
 * Who attended `gathering`: every agent sampled in its area (case-insensitively) at a time in
 * [start, end). Null when the run, spanning `run.from` to `run.to`, did not reach the gathering
 * (so "nobody came" and "not measured" differ).
 */
export function attendance(
  samples: readonly LocationSample[],
  gathering: Gathering,
  run: { from: GameTime; to: GameTime },
): Attendance | null {
  const start = gameMinutes(gathering.start);
  const end = gameMinutes(gathering.end);
  if (gameMinutes(run.to) <= start || gameMinutes(run.from) >= end) return null;
  const area = gathering.area.trim().toLowerCase();
  const seen: string[] = [];
  for (const s of [...samples].sort((a, b) => gameMinutes(a.at) - gameMinutes(b.at))) {
    const t = gameMinutes(s.at);
    if (t < start || t >= end || s.location === null) continue;
    if (areaOfPath(s.location).toLowerCase() !== area) continue;
    if (!seen.includes(s.agentId)) seen.push(s.agentId);
  }
  const attendees = seen.filter((id) => id !== gathering.host);
  return { attendees, count: attendees.length, hostPresent: seen.includes(gathering.host) };
}
