/**
 * @module Benchmark 8(b) of issue 6: wall time of the 25-agent smallville town over one game day
 * when every model call takes 300 ms. Run:
 * `deno run -A tests/bench/town_wall_time.ts [--hours 24] [--latency 300] [--concurrency 25] [--queue]
 * [--towns N]`. With `--queue` every tick goes through Deno KV queues (an in-memory KV), as
 * `main.ts` runs it: planned, one message per group of agents, closed by the last step. With
 * `--towns N` (issue 15's scale benchmark) N copies of the town run at once through the queue,
 * as `deno task simulate --towns N` runs them; `--at-once N` caps the messages the consumer
 * handles at once (default `CONSUMER_AT_ONCE`) and `--processes P` splits the towns over P
 * children of this script (each its own store and consumer) that share one fake server. The fake server runs in its own process.
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
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { parseArgs } from "node:util";
import { CachedEmbedder } from "../../lib/cached_embedder.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { OpenAiEmbedder } from "../../lib/openai/openai_embedder.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { simulateTown, type SimulationProgress } from "../../src/eval/simulate_town.ts";
import type { WorldId } from "../../src/domain/ids.ts";
import {
  consumeTicksFromKv,
  mergeRuns,
  simulateTowns,
  townsCacheBytes,
  type TownsRun,
} from "../../cli/_simulate_towns.ts";
import { runShards, type ShardRun, shardsOf } from "../../cli/_simulate_shards.ts";
import type { Attribution } from "../../src/domain/usage.ts";
import type { Embedder, Embeddings } from "../../src/ports/embedder.ts";
import type { Completion, LanguageModel, Prompt } from "../../src/ports/language_model.ts";
import { tickWorld, type TickWorldOptions } from "../../src/app/simulation/tick_world.ts";
import { z } from "zod";
import { TOWNS } from "../../towns/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    hours: { type: "string", default: "24" },
    latency: { type: "string", default: "300" },
    concurrency: { type: "string", default: "25" },
    queue: { type: "boolean", default: false },
    towns: { type: "string" },
    "at-once": { type: "string" },
    processes: { type: "string", default: "1" },
    "first-town": { type: "string", default: "1" },
    "fake-url": { type: "string" },
  },
});
const towns = values.towns === undefined ? undefined : Number(values.towns);
const processes = Number(values.processes);
const firstTown = Number(values["first-town"]);
const atOnce = values["at-once"] === undefined ? undefined : Number(values["at-once"]);
const hours = Number(values.hours);
const latencyMs = Number(values.latency);
const concurrency = Number(values.concurrency);

/** Requests sent to the fake server. */
interface WireCount {
  chats: number;
  embeddings: number;
}

/** Pays a real round trip to the fake server per call, then answers like the offline model. */
class RoundTripModel implements LanguageModel {
  readonly info = { mode: "openai" as const, main: "fake-main", fast: "fake-fast" };
  readonly #wire: OpenAiLanguageModel;
  readonly #answers: OfflineLanguageModel;
  readonly #count: WireCount;

  constructor(wire: OpenAiLanguageModel, answers: OfflineLanguageModel, count: WireCount) {
    this.#wire = wire;
    this.#answers = answers;
    this.#count = count;
  }

  async complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>> {
    this.#count.chats++;
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
  readonly #count: WireCount;

  constructor(wire: OpenAiEmbedder, vectors: LocalEmbedder, count: WireCount) {
    this.#wire = wire;
    this.#vectors = vectors;
    this.#count = count;
    this.info = vectors.info;
  }

  async embed(texts: readonly string[], attribution: Attribution): Promise<Embeddings> {
    this.#count.embeddings++;
    await this.#wire.embed(texts, attribution);
    return await this.#vectors.embed(texts, attribution);
  }
}

if (towns !== undefined && processes > 1) {
  await runInProcesses(towns);
} else if (values["fake-url"] !== undefined) {
  await runHere(values["fake-url"]);
} else {
  await using fake = await fakeOpenAiProcess(latencyMs);
  await runHere(fake.url);
}

/** The run in this process, against the fake server at `fakeUrl`. */
async function runHere(fakeUrl: string): Promise<void> {
  const local = new LocalEmbedder({ dimensions: 384 });
  await using storage = {
    inner: await openKvStorage({
      dimensions: local.info.dimensions,
      cacheBytes: townsCacheBytes(towns),
    }),
    async [Symbol.asyncDispose]() {
      await this.inner.close();
    },
  };
  const wire = { chats: 0, embeddings: 0 };
  const deps: Deps = {
    storage: storage.inner,
    model: new RoundTripModel(
      new OpenAiLanguageModel({
        apiKey: "bench",
        baseURL: fakeUrl,
        mainModel: "fake-main",
        fastModel: "fake-fast",
      }),
      new OfflineLanguageModel({ onUsage: (r) => storage.inner.usage.add(r) }),
      wire,
    ),
    embedder: new CachedEmbedder(
      new RoundTripEmbedder(
        new OpenAiEmbedder({
          apiKey: "bench",
          baseURL: fakeUrl,
          model: "fake-embedding",
          dimensions: 384,
        }),
        local,
        wire,
      ),
    ),
    ids: new RandomIdSource(),
    sleep: abortableSleep,
  };

  await using _consumer = values.queue || towns !== undefined
    ? await consumeTicksFromKv(deps, { atOnce })
    : null;

  const started = performance.now();
  let lastHour = -1;
  let peakRss = 0;
  const run = {
    template: "smallville" as const,
    catalog: TOWNS,
    hours,
    concurrency,
    tick: (d: Deps, worldId: WorldId, options: TickWorldOptions) => tickWorld(d, worldId, options),
    wallClock: () => performance.now(),
    modelName: `offline answers behind the fake OpenAI server at ${latencyMs} ms`,
    onProgress: (p: SimulationProgress) => {
      peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
      const hour = Math.floor(p.minutesDone / 60);
      if (hour === lastHour) return;
      lastHour = hour;
      // deno-lint-ignore no-console
      console.error(
        `${p.now} · ${p.usage.calls} calls · ${p.stepErrors} failed steps · ${
          Math.round((performance.now() - started) / 1000)
        }s · RSS ${Math.round(peakRss / 2 ** 20)} MB`,
      );
    },
  };
  if (towns !== undefined) {
    const result = await simulateTowns(deps, { ...run, towns, firstTown });
    const peakRssMb = Math.round(peakRss / 2 ** 20);
    report(result, wire, [peakRssMb]);
    // deno-lint-ignore no-console
    console.log(JSON.stringify({ ...result, peakRssMb, wire }));
    return;
  }
  const { summary } = await simulateTown(deps, run);
  // deno-lint-ignore no-console
  console.log(
    `${
      values.queue ? "through Deno KV queues: " : ""
    }${summary.agents} agents × ${summary.gameHours} game hours, concurrency ${concurrency}, ${latencyMs} ms per call: ${
      (summary.wallSeconds / 60).toFixed(1)
    } min wall (${summary.wallSeconds} s); ${
      requests(wire)
    }; ${summary.callsPerAgentDay} calls and ${summary.tokensPerAgentDay} tokens per agent-day; ${summary.stepErrors} failed steps${
      summary.stepErrorExamples.length > 0 ? ` (${summary.stepErrorExamples.join(" | ")})` : ""
    }`,
  );
  // deno-lint-ignore no-console
  console.log(JSON.stringify(summary));
}

/** `--processes P`: the towns split over P children of this script sharing one fake server. */
async function runInProcesses(towns: number): Promise<void> {
  await using fake = await fakeOpenAiProcess(latencyMs);
  const started = performance.now();
  const runs = await runShards(shardsOf(towns, processes), {
    args: (shard) => [
      ...["run", "-A", "--lock=deno.dev.lock", "tests/bench/town_wall_time.ts"],
      ...["--towns", String(shard.towns), "--first-town", String(shard.firstTown)],
      ...["--hours", String(hours), "--latency", String(latencyMs)],
      ...["--concurrency", String(concurrency), "--fake-url", fake.url],
      ...(atOnce === undefined ? [] : ["--at-once", String(atOnce)]),
    ],
    // deno-lint-ignore no-console
    err: (text) => console.error(text.trimEnd()),
  });
  const merged = mergeRuns(runs, (performance.now() - started) / 1000);
  const wire = { chats: 0, embeddings: 0 };
  for (const r of runs as (ShardRun & { wire: WireCount })[]) {
    wire.chats += r.wire.chats;
    wire.embeddings += r.wire.embeddings;
  }
  report(merged, wire, runs.map((r) => r.peakRssMb));
  // deno-lint-ignore no-console
  console.log(JSON.stringify({ ...merged.total, peakRssMb: runs.map((r) => r.peakRssMb) }));
}

function requests(wire: WireCount): string {
  return `${wire.chats} chat and ${wire.embeddings} embedding requests`;
}

/** The one-line result of a run of several towns. */
function report(run: TownsRun, wire: WireCount, peaks: number[]): void {
  const total = run.total;
  // deno-lint-ignore no-console
  console.log(
    `through Deno KV queues: ${total.towns} towns in ${peaks.length} process(es), ${total.agents} agents × ${total.gameHours} game hours, concurrency ${concurrency}, ${latencyMs} ms per call: ${
      (total.wallSeconds / 60).toFixed(1)
    } min wall (${total.wallSeconds} s); ${
      requests(wire)
    }; ${total.callsPerAgentDay} calls and ${total.tokensPerAgentDay} tokens per agent-day; ${total.stepErrors} of ${total.steps} steps failed${
      total.stepErrorExamples.length > 0 ? ` (${total.stepErrorExamples.join(" | ")})` : ""
    }; ${total.busyRetries} busy ticks asked again; peak RSS ${
      peaks.join(" + ")
    } MB (sampled after ticks)`,
  );
}

/** Starts `_fake_openai_process.ts` and reads its base URL; dispose of it to stop it. */
async function fakeOpenAiProcess(latency: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./_fake_openai_process.ts", import.meta.url).pathname,
      `${latency}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("The fake OpenAI process exited before it listened");
    text += value;
  }
  reader.releaseLock();
  return {
    url: text.trim(),
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}
