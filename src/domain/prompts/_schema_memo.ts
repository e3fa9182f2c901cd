/**
 * @module Answer schemas built once per shape: a prompt whose schema depends on its input (a
 * count, a time span) built a new zod schema per call, and zod compiled each one's validator
 * afresh; together a visible share of a simulated town's CPU (issue 25).
 */
import { recentCache } from "../recent_memo.ts";

/** Schemas kept per builder (all forgotten when full). */
const MAX_SCHEMAS = 500;

/** A cache of schemas by key (see {@linkcode recentCache}): one per prompt whose schema varies. */
export function schemaMemo<T>(): (key: string, build: () => T) => T {
  return recentCache<T>(MAX_SCHEMAS);
}

/**
 * The key of a planning level's schema: its span, how many locations it numbers and whether
 * the game registered actions (what the actions and item-plan schemas depend on).
 */
export function spanKey(
  span: { start: string; end: string },
  { locations, gameActions }: { locations: readonly unknown[]; gameActions?: readonly unknown[] },
): string {
  return `${span.start}|${span.end}|${locations.length}|${(gameActions?.length ?? 0) > 0}`;
}
