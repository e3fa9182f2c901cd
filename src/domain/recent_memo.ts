/** @module Results remembered for the keys seen lately, for hot paths that see the same few again. */

/**
 * A cache of up to `max` results by key (all forgotten when full): `(key, compute)` answers the
 * result kept for `key`, else computes and keeps it. The key must name everything the result
 * depends on.
 */
export function recentCache<T>(max: number): (key: string, compute: () => T) => T {
  const known = new Map<string, T>();
  return (key, compute) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (known.size >= max) known.clear();
    known.set(key, value);
    return value;
  };
}

/**
 * `compute`, a pure function of a string, remembering up to `max` results by argument (game
 * times, prompts' stable parts).
 */
export function rememberRecent<T>(compute: (key: string) => T, max: number): (key: string) => T {
  const cache = recentCache<T>(max);
  return (key) => cache(key, () => compute(key));
}
