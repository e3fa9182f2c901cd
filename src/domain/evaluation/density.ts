/** @module Relationship network density from whom each agent says it knows (Generative Agents §7.1). */

/**
 * Density: each unordered pair of agents is an edge when each names the other as known;
 * density = edges / (n·(n−1)/2), 0 with fewer than two agents. Pairs come in `ids` order.
 */
export function mutualDensity(
  ids: readonly string[],
  knows: ReadonlyMap<string, ReadonlySet<string>>,
): { density: number; pairs: [string, string][] } {
  const pairs: [string, string][] = [];
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const [a, b] = [ids[i], ids[j]];
      if (knows.get(a)?.has(b) && knows.get(b)?.has(a)) pairs.push([a, b]);
    }
  }
  const all = (ids.length * (ids.length - 1)) / 2;
  return { density: all === 0 ? 0 : Math.round((pairs.length / all) * 1000) / 1000, pairs };
}
