/** @module A pure function of a string, remembering its results for the strings seen lately. */

/**
 * `compute`, remembering up to `max` results by argument (all forgotten when full): for hot
 * paths that see the same few strings again and again (game times, prompts' stable parts).
 */
export function rememberRecent<T>(compute: (key: string) => T, max: number): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    if (known.size >= max) known.clear();
    known.set(key, value);
    return value;
  };
}
