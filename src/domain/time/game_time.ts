/** @module Game time: ISO 8601 local time without zone, the only time the core knows. */
import { z } from "zod";
import { rememberRecent } from "../recent_memo.ts";

const pattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/**
 * The last year a game time may have: one short of 9999, so a day of ticks (or a day plan) from
 * any valid time still has four-digit years.
 */
export const MAX_GAME_YEAR = 9998;

/** A game time such as `2023-02-13T07:00:00`, in years 1 to {@linkcode MAX_GAME_YEAR}. */
export const GameTime = z
  .string()
  .regex(pattern, "Use game time as YYYY-MM-DDTHH:MM:SS, e.g. 2023-02-13T07:00:00")
  .refine(isCalendarTime, "Not a real calendar date or time")
  .refine(inGameYears, `Use a year from 1 to ${MAX_GAME_YEAR}`)
  .meta({ id: "GameTime", example: "2023-02-13T07:00:00" });
export type GameTime = z.infer<typeof GameTime>;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether a string of the pattern's shape names a real date and time (the proleptic Gregorian
 * calendar, as `Date` reads it). Checked by fields, not by a round trip through `Date`: an
 * import checks two times per memory, and the round trip was a tenth of its parsing (issue 25).
 */
function isCalendarTime(time: string): boolean {
  const [, y, mo, d, h, mi, s] = (pattern.exec(time) ?? []).map(Number);
  if (y === undefined) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h < 24 && mi < 60 && s < 60;
}

/**
 * Times parsed lately: a tick reads the same few times (its clock, plans' starts) thousands of
 * times, and parsing was 2% of a simulation's CPU (issue 25). Cleared when full.
 */
const parseMs = rememberRecent(parseUncached, 4096);

function parseUncached(time: string): number {
  const m = pattern.exec(time);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  // Date.UTC reads years 0-99 as 1900-1999: set the full year explicitly.
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

function formatGameTime(ms: number): string {
  if (!Number.isFinite(ms)) return "";
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * Whether a time (e.g. the end of a tick) is within years 1 to {@linkcode MAX_GAME_YEAR}; times
 * beyond them would lose their fixed-width, sortable form.
 */
export function inGameYears(time: string): boolean {
  const year = Number(time.slice(0, 4));
  return /^\d{4}-/.test(time) && year >= 1 && year <= MAX_GAME_YEAR;
}

/** Minutes since 1970-01-01T00:00:00 of a game time; a sortable number for indexes. */
export function gameMinutes(time: GameTime | string): number {
  return parseMs(time) / 60_000;
}

/** The game time `minutes` after `time` (fractions of a minute are kept to the second). */
export function addMinutes(time: GameTime | string, minutes: number): GameTime {
  return formatGameTime(parseMs(time) + Math.round(minutes * 60) * 1000) as GameTime;
}

/** The game time at a number of minutes since the epoch. */
export function fromGameMinutes(minutes: number): GameTime {
  return formatGameTime(Math.round(minutes * 60) * 1000) as GameTime;
}

/** Game hours from `from` to `to`; negative when `to` is earlier. */
export function hoursBetween(from: GameTime | string, to: GameTime | string): number {
  return (parseMs(to) - parseMs(from)) / 3_600_000;
}

/**
 * `gameMinutes` without a regex or Date: the hot path of retrieval parses one time per memory.
 * Assumes a time already validated as GameTime.
 */
export function gameMinutesFast(time: string): number {
  const d = (i: number) => time.charCodeAt(i) - 48;
  const y = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
  const m = d(5) * 10 + d(6);
  const day = d(8) * 10 + d(9);
  // Days from civil (Howard Hinnant's algorithm), proleptic Gregorian.
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146097 + doe - 719468;
  return days * 1440 + (d(11) * 10 + d(12)) * 60 + d(14) * 10 + d(15) +
    (d(17) * 10 + d(18)) / 60;
}
