/** @module Time of day as `HH:MM`: what plan prompts and their answers use inside one game day. */
import { z } from "zod";

/** A time of day on the 24-hour clock, `HH:MM`. */
export const ClockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Use a 24-hour time as HH:MM, e.g. 07:30");

/** Minutes since midnight of an `HH:MM` time ("24:00", the end of the day, is 1440). */
export function clockMinutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** The `HH:MM` time of a minute of the day, clamped to 0–1440 (the end of the day is "24:00"). */
export function clockTime(minutes: number): string {
  const m = Math.min(1440, Math.max(0, Math.floor(minutes)));
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}
