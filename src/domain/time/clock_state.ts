/**
 * @module The engine's clock port: how the generic tick loop reads a world's clock and moves it
 * by compare-and-set, without knowing what a world is. The world module implements it
 * (`worldTickClock` in `src/world/clock.ts`); tests may pass their own.
 */
import { z } from "zod";
import type { GameTime } from "./game_time.ts";

/** The longest tick: one game day. */
export const MAX_TICK_MINUTES = 1440;
/** Game minutes one tick advances. */
export const TickMinutes = z.number().int().min(1).max(MAX_TICK_MINUTES);
/**
 * A clock as the engine needs it: the time now, the default step, and whether scheduled ticks
 * may run (not while paused, nor in manual mode, where only requested ticks move it).
 */
export interface ClockState {
  now: GameTime;
  minutesPerTick: number;
  paused: boolean;
  mode?: "cron" | "manual";
}
/** Whatever the engine ticks: something with an id and a clock. */
export interface Clocked {
  id: string;
  clock: ClockState;
}
