/**
 * @module The real OpenAI client pointed at the fake server, for prompt tests; the variables
 * that point a whole server at it.
 */
import { type FakeOpenAi, startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";

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
