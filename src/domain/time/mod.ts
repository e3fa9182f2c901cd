/** @module Game time: ISO game clock arithmetic, calendar, the tick's span. */
export * from "./calendar.ts";
export * from "./clock_state.ts";
export * from "./game_time.ts";
export * from "./time_of_day.ts";
