/**
 * @module Paraphrase recall of an embedder on word-form variants: each query says what one memory
 * says with other forms of its words ("lost" / "lose", "party" / "parties", "mayor" /
 * "mayoral"); recall@5 is the share of queries whose memory ranks in the top 5 of 40 memories.
 * `deno run -A tests/bench/embedder_word_forms.ts` prints it; the embedder test pins a floor.
 */
import type { Embedder } from "../../src/ports/embedder.ts";

/** The memories searched: 20 targets and 20 distractors that share names and places with them. */
export const MEMORIES: readonly string[] = [
  "Ada lost her red scarf at the park",
  "Lucia is hosting a party at Marigold Cafe",
  "Walter is running for mayor",
  "Sofia bought fresh bread at the market",
  "Jun told Priya about the broken bridge",
  "Mateo is studying chemistry at the college",
  "Nadia painted a portrait of her grandmother",
  "Oskar repaired the fence behind the pharmacy",
  "Ingrid was singing in the choir on Sunday",
  "Theo wrote a letter to the newspaper",
  "Ruth is knitting a blanket for the baby",
  "Tobi caught three fish at the lake",
  "Victor drove his daughter to school",
  "Camille is baking croissants for the cafe",
  "Marta swept the floor of the library",
  "Isaac is teaching children to swim",
  "Felix felt worried about the rent",
  "Priya is planning a trip to the mountains",
  "Gus collects rumours about the king",
  "Walter won the chess tournament",
  "Ada walked through the park in the morning",
  "Lucia is cleaning the counter at Marigold Cafe",
  "Walter is reading the newspaper on the bench",
  "Sofia sells vegetables at the market",
  "Jun is fixing a bicycle in the garage",
  "Mateo is drinking coffee at the college",
  "Nadia is talking with her grandmother on the phone",
  "Oskar is counting pills at the pharmacy",
  "Ingrid is sleeping in her bedroom",
  "Theo is reading a book in the library",
  "Ruth is watering the tomatoes in the garden",
  "Tobi is walking his dog by the lake",
  "Victor is cooking dinner for his family",
  "Camille is serving tea at the cafe",
  "Marta is shelving books at the library",
  "Isaac is jogging along the river",
  "Felix is paying bills at the bank",
  "Priya is packing a suitcase",
  "Gus is whistling a tune in the square",
  "Walter is playing cards with his friends",
];

/** Query → index of the memory it paraphrases with other word forms. */
export const QUERIES: readonly (readonly [string, number])[] = [
  ["What did I lose?", 0],
  ["any parties tonight?", 1],
  ["the mayoral race", 2],
  ["who buys bread", 3],
  ["bridges breaking", 4],
  ["chemical studies", 5],
  ["paintings of portraits", 6],
  ["repairs of fences", 7],
  ["choir singers", 8],
  ["writing letters", 9],
  ["knitted blankets", 10],
  ["catching fishes", 11],
  ["driving daughters", 12],
  ["bakes croissant", 13],
  ["sweeping floors", 14],
  ["teaches swimming", 15],
  ["worries about renting", 16],
  ["planned trips", 17],
  ["collecting rumours about kings", 18],
  ["winning tournaments", 19],
  ["Who is buying things?", 3],
  ["Who is telling news?", 4],
  ["Who catches something?", 11],
  ["Who drives?", 12],
  ["Who wins?", 19],
  ["Who writes?", 9],
  ["Who will sing?", 8],
  ["Who is feeling something?", 16],
];

/** Cosine of two unit vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** The share of queries whose memory ranks among the `k` nearest memories, and the ones missed. */
export async function recallAtK(
  embedder: Embedder,
  k = 5,
): Promise<{ recall: number; missed: string[] }> {
  const attribution = { operation: "bench" };
  const memories = (await embedder.embed(MEMORIES, attribution)).vectors;
  const queries = (await embedder.embed(QUERIES.map(([q]) => q), attribution)).vectors;
  const missed: string[] = [];
  QUERIES.forEach(([, target], qi) => {
    const ranked = memories
      .map((m, i) => ({ i, score: dot(queries[qi], m) }))
      .sort((a, b) => b.score - a.score || a.i - b.i);
    if (!ranked.slice(0, k).some((r) => r.i === target)) missed.push(QUERIES[qi][0]);
  });
  return { recall: 1 - missed.length / QUERIES.length, missed };
}

if (import.meta.main) {
  const { LocalEmbedder } = await import("../../lib/offline/local_embedder.ts");
  for (const k of [1, 5]) {
    const { recall, missed } = await recallAtK(new LocalEmbedder(), k);
    // deno-lint-ignore no-console
    console.log(
      `LocalEmbedder recall@${k} on ${QUERIES.length} word-form paraphrases: ${recall}` +
        (missed.length > 0 ? ` (missed: ${missed.join("; ")})` : ""),
    );
  }
}
