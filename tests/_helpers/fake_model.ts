/**
 * @module The real OpenAI client pointed at the fake server, for prompt tests; the variables
 * that point a whole server at it; a harness recording what an adapter on it reported.
 */
import {
  type FakeOpenAi,
  type FakeResponse,
  startFakeOpenAi,
} from "../../dev/fake_openai_server.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { UsageRecord } from "../../src/domain/usage.ts";

/** A fake server and a client on it; dispose with `await using`. */
export async function fakeModel(): Promise<
  { fake: FakeOpenAi; model: OpenAiLanguageModel } & AsyncDisposable
> {
  const fake = await startFakeOpenAi();
  const model = new OpenAiLanguageModel({
    apiKey: "test-key",
    baseURL: fake.url,
    mainModel: "fake-main",
    fastModel: "fake-fast",
    timeoutMs: 5_000,
    maxRetries: 1,
    sleep: () => Promise.resolve(),
  });
  return { fake, model, [Symbol.asyncDispose]: () => fake.close() };
}

/** Server variables for the OpenAI path on `fake`: its chat models and its 64-d embeddings. */
export function fakeModelEnv(fake: FakeOpenAi): Record<string, string> {
  return {
    OPENAI_BASE_URL: fake.url,
    SIMULACRA_MODEL: "fake-main",
    SIMULACRA_FAST_MODEL: "fake-fast",
    SIMULACRA_EMBEDDING_MODEL: "fake-embedding",
    SIMULACRA_EMBEDDING_DIMENSIONS: "64",
  };
}

/**
 * A scripted answer of the in-character reply step: `reply` said plainly (no thoughts, no
 * actions), importance 4, no re-plan; `extra` adds streaming options such as `breakAfter`.
 */
export function respondAnswer(
  reply: string,
  extra: { breakAfter?: number; chunkMs?: number } = {},
): FakeResponse {
  return {
    json: { reply, thoughts: null, actions: null, bounded: false, importance: 4, replan: false },
    ...extra,
  };
}

/** What an adapter built on the fake server reported: its usage and the sleeps it asked for. */
export interface FakeOpenAiRun<C> {
  fake: FakeOpenAi;
  client: C;
  records: UsageRecord[];
  /** Every back-off the client asked for; none is waited. */
  sleeps: number[];
}

/**
 * Starts the fake server, builds a client on it with `build` (given the options that point a
 * client at it: its `baseURL`, and the `onUsage` and `sleep` that record), runs `run`, and closes
 * the server.
 */
export async function withFakeOpenAi<C>(
  build: (on: { baseURL: string; onUsage: (r: UsageRecord) => void; sleep: Deps["sleep"] }) => C,
  run: (harness: FakeOpenAiRun<C>) => Promise<void>,
): Promise<void> {
  const fake = await startFakeOpenAi();
  const records: UsageRecord[] = [];
  const sleeps: number[] = [];
  try {
    const client = build({
      baseURL: fake.url,
      onUsage: (record) => void records.push(record),
      sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
    });
    await run({ fake, client, records, sleeps });
  } finally {
    await fake.close();
  }
}
