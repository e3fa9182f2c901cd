/** @module Benchmark of LocalEmbedder on typical 12-word observations. */
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";

const SUBJECTS = [
  "Isabella Rodriguez",
  "Klaus Mueller",
  "Maria Lopez",
  "Sam Moore",
  "Abigail Chen",
];
const ACTIONS = [
  "is decorating the cafe for the Valentine's Day party tonight",
  "is writing a research paper about gentrification in the neighbourhood",
  "is studying for her physics exam at the college library",
  "is talking with neighbours about his campaign for the mayoral election",
  "is painting a landscape of the park near her apartment",
];

function observations(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) => `${SUBJECTS[i % 5]} ${ACTIONS[(i * 3) % 5]} (${i})`,
  );
}

const embedder = new LocalEmbedder();
const attribution = { operation: "bench" };
const one = observations(1);
const hundred = observations(100);
const thousand = observations(1000);

Deno.bench("LocalEmbedder.embed() 1 observation", async () => {
  await embedder.embed(one, attribution);
});

Deno.bench("LocalEmbedder.embed() 100 observations", async () => {
  await embedder.embed(hundred, attribution);
});

Deno.bench("LocalEmbedder.embed() 1,000 observations", async () => {
  await embedder.embed(thousand, attribution);
});
