/**
 * @module Issue 25's prompt-cache benchmark: calls and tokens per agent-day of the 25-agent
 * smallville town with every model call sent through the real client (`OpenAiLanguageModel`,
 * HTTP) to the fake OpenAI server, and the share of prompt tokens that repeat the prefix of an
 * earlier call (the fake's `cached_tokens`, `dev/_prompt_prefix_cache.ts`). Run:
 * `deno run -A tests/bench/prompt_cache_share.ts [--hours 24] [--seed 11] [--openai-cache]`.
 *
 * The fake's answers are sampled from each prompt's JSON schema and cannot satisfy the plans'
 * time rules, so the value used is the offline model's answer to the same prompt (as
 * `town_wall_time.ts` does): the run decides like the seeded offline run, and each call's prompt
 * is the one a real provider would see. Usage is booked from the wire (the fake's token
 * estimate, 4 characters a token, and its cached tokens), so the ledger's `cachedPromptTokens`
 * is what the client read from `usage.prompt_tokens_details.cached_tokens`. The fake counts
 * vLLM's 16-token blocks by default; `--openai-cache` counts OpenAI's (from 1,024 tokens, in
 * 128-token steps).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import { OPENAI_PROMPT_CACHE, startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { Attribution } from "../../src/domain/usage.ts";
import type { Completion, LanguageModel, Prompt } from "../../src/ports/language_model.ts";
import { simulateTown } from "../../src/eval/simulate_town.ts";
import type { WorldId } from "../../src/domain/ids.ts";
import { tickWorld, type TickWorldOptions } from "../../src/app/simulation/tick_world.ts";
import { TOWNS } from "../../towns/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    hours: { type: "string", default: "24" },
    seed: { type: "string", default: "11" },
    "openai-cache": { type: "boolean", default: false },
  },
});

/** Sends each prompt over the wire (its usage booked from there), answers like the offline model. */
class WireUsageModel implements LanguageModel {
  readonly info = { mode: "openai" as const, main: "fake-main", fast: "fake-fast" };
  readonly #wire: OpenAiLanguageModel;
  readonly #answers: OfflineLanguageModel;

  constructor(wire: OpenAiLanguageModel, answers: OfflineLanguageModel) {
    this.#wire = wire;
    this.#answers = answers;
  }

  async complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>> {
    // Any JSON is accepted on the wire: the call is there for its prompt and usage.
    const sent = await this.#wire.complete({ ...prompt, schema: z.unknown() }, attribution);
    const answered = await this.#answers.complete(prompt, attribution);
    return { ...answered, usage: sent.usage };
  }
}

await using fake = await startFakeOpenAi({
  embeddingDimensions: 384,
  ...values["openai-cache"] ? { promptCache: OPENAI_PROMPT_CACHE } : {},
});
// A day is thousands of requests: keep no log.
const trim = setInterval(() => fake.requests.splice(0), 1_000);
const local = new LocalEmbedder({ dimensions: 384 });
const storage = await openKvStorage({ dimensions: local.info.dimensions });
const deps: Deps = {
  storage,
  model: new WireUsageModel(
    new OpenAiLanguageModel({
      apiKey: "bench",
      baseURL: fake.url,
      mainModel: "fake-main",
      fastModel: "fake-fast",
      onUsage: (r) => storage.usage.add(r),
    }),
    new OfflineLanguageModel({}),
  ),
  embedder: local,
  ids: new RandomIdSource(),
  sleep: abortableSleep,
};
try {
  const { summary, worldId } = await simulateTown(deps, {
    template: "smallville",
    catalog: TOWNS,
    hours: Number(values.hours),
    seed: Number(values.seed),
    tick: (d: Deps, id: WorldId, options: TickWorldOptions) => tickWorld(d, id, options),
    wallClock: () => performance.now(),
    modelName: "offline answers through the fake OpenAI server",
  });
  const stats = fake.promptCacheStats();
  const totals = await storage.usage.totals(worldId);
  const ledger = totals.total;
  const share = (n: number, of: number) => of === 0 ? 0 : Math.round((1000 * n) / of) / 10;
  // deno-lint-ignore no-console
  console.log(JSON.stringify(
    {
      hours: summary.gameHours,
      seed: summary.seed,
      cacheRule: values["openai-cache"] ? "openai" : "vllm",
      callsPerAgentDay: summary.callsPerAgentDay,
      tokensPerAgentDay: summary.tokensPerAgentDay,
      stepErrors: summary.stepErrors,
      byOperation: Object.fromEntries(
        Object.entries(summary.byOperation).map(([op, u]) => [op, u.calls]),
      ),
      fake: { ...stats, cachedShare: share(stats.cachedTokens, stats.promptTokens) },
      ledgerCachedPromptTokens: ledger.cachedPromptTokens ?? null,
      cachedShareByOperation: Object.fromEntries(
        Object.entries(totals.byOperation).map((
          [op, u],
        ) => [op, `${share(u.cachedPromptTokens ?? 0, u.promptTokens)}% of ${u.promptTokens}`]),
      ),
    },
    null,
    2,
  ));
} finally {
  clearInterval(trim);
  await storage.close();
}
