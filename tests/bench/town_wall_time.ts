/**
 * @module Benchmark 8(b) of issue 6: wall time of the 25-agent smallville town over one game day
 * when every model call takes 300 ms. Run:
 * `deno run -A tests/bench/town_wall_time.ts [--hours 24] [--latency 300] [--concurrency 25]`.
 *
 * Every model call goes through the real client (`OpenAiLanguageModel`, the openai SDK, HTTP)
 * to the fake OpenAI server, which answers after `--latency` ms. The fake's answers are sampled
 * from each prompt's JSON schema and cannot satisfy the plans' time rules, so the value used is
 * the offline model's answer to the same prompt: the run decides like the offline run of
 * benchmark 8(a) (up to the order in which concurrent agents act), and each call costs one real
 * round trip with the latency on top. Embedding calls that miss the in-process cache do the same
 * through `OpenAiEmbedder` (local vectors, so retrieval matches 8(a)). Usage is booked once per
 * call, from the offline model's count.
 */
import { parseArgs } from "node:util";
import { CachedEmbedder } from "../../lib/cached_embedder.ts";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { OpenAiEmbedder } from "../../lib/openai/openai_embedder.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/deps.ts";
import { simulateTown } from "../../src/eval/simulate_town.ts";
import type { Attribution } from "../../src/model/usage.ts";
import type { Embedder, Embeddings } from "../../src/ports/embedder.ts";
import type { Completion, LanguageModel, Prompt } from "../../src/ports/language_model.ts";
import { tickWorld } from "../../src/simulation/tick_world.ts";
import { z } from "zod";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    hours: { type: "string", default: "24" },
    latency: { type: "string", default: "300" },
    concurrency: { type: "string", default: "25" },
  },
});
const hours = Number(values.hours);
const latencyMs = Number(values.latency);
const concurrency = Number(values.concurrency);

/** Pays a real round trip to the fake server per call, then answers like the offline model. */
class RoundTripModel implements LanguageModel {
  readonly info = { mode: "openai" as const, main: "fake-main", fast: "fake-fast" };
  readonly #wire: OpenAiLanguageModel;
  readonly #answers: OfflineLanguageModel;

  constructor(wire: OpenAiLanguageModel, answers: OfflineLanguageModel) {
    this.#wire = wire;
    this.#answers = answers;
  }

  async complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>> {
    // Any JSON is accepted on the wire: the call is there for its cost, not its answer.
    await this.#wire.complete({ ...prompt, schema: z.unknown() }, attribution);
    return await this.#answers.complete(prompt, attribution);
  }
}

/** Pays a real round trip to the fake server per batch, then returns the local vectors. */
class RoundTripEmbedder implements Embedder {
  readonly info;
  readonly #wire: OpenAiEmbedder;
  readonly #vectors: LocalEmbedder;

  constructor(wire: OpenAiEmbedder, vectors: LocalEmbedder) {
    this.#wire = wire;
    this.#vectors = vectors;
    this.info = vectors.info;
  }

  async embed(texts: readonly string[], attribution: Attribution): Promise<Embeddings> {
    await this.#wire.embed(texts, attribution);
    return await this.#vectors.embed(texts, attribution);
  }
}

await using fake = await startFakeOpenAi({ latencyMs, embeddingDimensions: 384 });
const local = new LocalEmbedder({ dimensions: 384 });
await using storage = {
  inner: await openKvStorage({ dimensions: local.info.dimensions }),
  async [Symbol.asyncDispose]() {
    await this.inner.close();
  },
};
const deps: Deps = {
  storage: storage.inner,
  model: new RoundTripModel(
    new OpenAiLanguageModel({
      apiKey: "bench",
      baseURL: fake.url,
      mainModel: "fake-main",
      fastModel: "fake-fast",
    }),
    new OfflineLanguageModel({ onUsage: (r) => storage.inner.usage.add(r) }),
  ),
  embedder: new CachedEmbedder(
    new RoundTripEmbedder(
      new OpenAiEmbedder({
        apiKey: "bench",
        baseURL: fake.url,
        model: "fake-embedding",
        dimensions: 384,
      }),
      local,
    ),
  ),
  ids: new RandomIdSource(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const started = performance.now();
let lastHour = -1;
const { summary } = await simulateTown(deps, {
  template: "smallville",
  hours,
  concurrency,
  tick: (d, worldId, options) => tickWorld(d, worldId, options),
  wallClock: () => performance.now(),
  modelName: `offline answers behind the fake OpenAI server at ${latencyMs} ms`,
  onProgress: (p) => {
    const hour = Math.floor(p.minutesDone / 60);
    if (hour === lastHour) return;
    lastHour = hour;
    // deno-lint-ignore no-console
    console.error(
      `${p.now} · ${p.usage.calls} calls · ${Math.round((performance.now() - started) / 1000)}s`,
    );
  },
});
const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions").length;
const embeddings = fake.requests.filter((r) => r.path === "/v1/embeddings").length;
// deno-lint-ignore no-console
console.log(
  `${summary.agents} agents × ${summary.gameHours} game hours, concurrency ${concurrency}, ${latencyMs} ms per call: ${
    (summary.wallSeconds / 60).toFixed(1)
  } min wall (${summary.wallSeconds} s); ${chats} chat and ${embeddings} embedding requests; ${summary.callsPerAgentDay} calls and ${summary.tokensPerAgentDay} tokens per agent-day; ${summary.stepErrors} failed steps${
    summary.stepErrorExamples.length > 0 ? ` (${summary.stepErrorExamples.join(" | ")})` : ""
  }`,
);
// deno-lint-ignore no-console
console.log(JSON.stringify(summary));
