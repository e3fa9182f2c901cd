import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import type { AgentId, AgentScope, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import type { MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import { rankMemories } from "../../../../src/app/memory/retrieval.ts";
import { rankCandidates } from "../../../../src/domain/memory/scoring.ts";
import { resolveWeights } from "../../../../src/domain/world/retrieval_weights.ts";
import type { MemoryScan } from "../../../../src/ports/memory_scan.ts";
import type { Storage } from "../../../../src/ports/storage.ts";
import { fromGameMinutes, gameMinutes } from "../../../../src/domain/time/game_time.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { storeEmbedded, TOWN_SUBJECTS } from "../../../_helpers/stored_memories.ts";

const subjects = TOWN_SUBJECTS;
const verbs = [
  "is talking about",
  "is reading about",
  "is worried about",
  "is excited about",
  "is planning",
  "is arguing over",
  "is painting",
  "is writing about",
];
const objects = [
  "the mayoral election",
  "the Valentine's party",
  "gentrification",
  "the pharmacy prices",
  "a new cafe menu",
  "the college exam",
  "a broken stove",
  "the park garden",
  "a music recital",
  "the town library",
  "rising rent",
  "a chemistry project",
  "a lost cat",
  "the supply store",
  "a jazz concert",
  "an old friend",
];
const places = [
  "at Hobbs Cafe",
  "in the park",
  "at the college",
  "at home",
  "at the bar",
  "near the pharmacy",
];

/** A deterministic pseudo-random generator, so the stream is the same on every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/**
 * `n` observations every 4 game minutes from 2023-01-01; each last accessed up to 3 days after
 * it was made, or (one in 20, as retrieval touches old memories) within the stream's last day.
 */
async function fillStream(storage: Storage, scope: AgentScope, n: number): Promise<void> {
  const random = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const embedder = new LocalEmbedder({ dimensions: 384 });
  const start = gameMinutes("2023-01-01T00:00:00");
  const end = start + n * 4;
  for (let batch = 0; batch < n / 500; batch++) {
    const records: MemoryRecord[] = [];
    for (let i = 0; i < 500; i++) {
      const seq = batch * 500 + i;
      const created = start + seq * 4;
      const accessed = random() < 0.05
        ? end - Math.floor(random() * 1440)
        : created + Math.floor(random() * 3 * 1440);
      records.push({
        id: `m_${String(seq).padStart(6, "0")}` as MemoryId,
        worldId: scope.worldId,
        agentId: scope.agentId,
        kind: "observation",
        description: `${pick(subjects)} ${pick(verbs)} ${pick(objects)} ${pick(places)}`,
        createdAt: fromGameMinutes(created),
        lastAccessedAt: fromGameMinutes(Math.min(accessed, end)),
        importance: 1 + Math.floor(random() ** 2 * 10),
        provenance: "witnessed",
      });
    }
    await storeEmbedded({ storage, embedder }, scope, records);
  }
}

const { backends, close } = await startBackends();
// The hosted backend when redis-server is here; otherwise the embedded one with its exhaustive
// search hidden, which runs the same candidate-generation code.
const backend = backends.find((b) => b.name === "upstash") ?? backends[0];

const queries = [
  "who is running for mayor",
  "the Valentine's party at the cafe",
  "rent and gentrification",
  "Klaus and his research",
  "music at the bar",
  "a cat that went missing",
  "exams at the college",
  "what happened at the pharmacy",
];

for (const n of [2_000, 10_000]) {
  Deno.test({
    name: `rankMemories() from candidates (${backend.name}) has recall@10 ≥ 0.99 against exact ` +
      `scoring on ${n.toLocaleString("en")} memories, and 1 where it says it is bounded`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const opened = await backend.open();
      const v = opened.vectors;
      // Hide the exhaustive search; delegate explicitly (class methods do not survive a spread).
      const vectors = {
        dimensions: v.dimensions,
        upsert: v.upsert.bind(v),
        query: v.query.bind(v),
        search: v.search.bind(v),
        fetch: v.fetch.bind(v),
        cosines: v.cosines.bind(v),
        delete: v.delete.bind(v),
      };
      const memoryScan: MemoryScan = { rank: (_scope, _query, o) => o.fromCandidates() };
      const storage = { memories: opened.memories, vectors, memoryScan } as unknown as Storage;
      const scope: AgentScope = { worldId: "recall" as WorldId, agentId: `agent${n}` as AgentId };
      try {
        await fillStream(storage, scope, n);
        const all = await storage.memories.all(scope);
        assert.equal(all.length, n);
        const allVectors = await storage.vectors.fetch(scope, all.map((m) => m.id));
        const vectorOf = new Map(allVectors.map((v) => [v.id, v.vector]));
        const embedder = new LocalEmbedder({ dimensions: 384 });
        const at = fromGameMinutes(gameMinutes("2023-01-01T00:00:00") + n * 4 + 60);
        let hits = 0;
        let rankings = 0;
        let bounded = 0;
        for (const query of queries) {
          const q = (await embedder.embed([query], { operation: "test" })).vectors[0];
          const cosines = all.map((m) => {
            const v = vectorOf.get(m.id)!;
            let s = 0;
            for (let i = 0; i < v.length; i++) s += v[i] * q[i];
            return s;
          });
          for (const preset of ["paper", "reference"] as const) {
            const weights = resolveWeights(preset);
            const exact = rankCandidates(all, cosines, { at, weights, decay: 0.995, limit: 10 });
            const got = await rankMemories({ storage, embedder }, scope, {
              query: q,
              at,
              weights,
              decay: 0.995,
              k: 10,
            });
            assert.equal(got.exact, false);
            const want = new Set(exact.map((s) => s.memory.id));
            const found = got.ranked.filter((s) => want.has(s.memory.id)).length;
            if (got.bounded) {
              bounded++;
              assert.equal(found, 10, `"${query}" (${preset}) is bounded, so exact`);
            }
            hits += found;
            rankings++;
          }
        }
        const recall = hits / (rankings * 10);
        // deno-lint-ignore no-console
        console.log(`recall@10 = ${recall}; bounded in ${bounded} of ${rankings}`);
        assert.ok(recall >= 0.99, `recall@10 = ${recall}`);
      } finally {
        await opened.close();
      }
    },
  });
}

Deno.test({
  name: "retrieval recall: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
