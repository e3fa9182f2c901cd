/**
 * @module Answer schemas built once per shape: a prompt whose schema depends on its input (a
 * count, a time span) built a new zod schema per call, and zod compiled each one's validator
 * afresh; together a visible share of a simulated town's CPU (issue 25).
 */

/** Schemas kept per builder (all forgotten when full). */
const MAX_SCHEMAS = 500;

/**
 * A cache of schemas by key: `(key, build)` answers the schema built for `key` before, else
 * builds and keeps it. The key must name everything the built schema depends on.
 */
export function schemaMemo<T>(): (key: string, build: () => T) => T {
  const known = new Map<string, T>();
  return (key, build) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const schema = build();
    if (known.size >= MAX_SCHEMAS) known.clear();
    known.set(key, schema);
    return schema;
  };
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
