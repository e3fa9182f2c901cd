/** @module Calendar arithmetic on game dates (`YYYY-MM-DD`): minutes of a day, days, weekdays. */
import { addMinutes, gameMinutes, type GameTime } from "./game_time.ts";

/** Minutes in a game day. */
export const DAY_MINUTES = 1440;

/** Minutes from the start of `date` to `time`. */
export function minuteOfDay(date: string, time: string): number {
  return gameMinutes(time) - gameMinutes(`${date}T00:00:00`);
}

/** The game time `minute` minutes into `date`. */
export function timeAt(date: string, minute: number): GameTime {
  return addMinutes(`${date}T00:00:00`, minute);
}

/** The date `days` days after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  return addMinutes(`${date}T00:00:00`, days * DAY_MINUTES).slice(0, 10);
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The English weekday name of a date. */
export function weekdayOf(date: string): string {
  const [y, m, d] = date.split("-").map(Number);
  return WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A date as people say it: "February 14". */
export function monthDay(date: string): string {
  const [, m, d] = date.split("-").map(Number);
  return `${MONTHS[m - 1]} ${d}`;
}
