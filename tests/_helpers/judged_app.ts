/** @module An app over one backend with a given judge (the offline one when none), for the evaluation route tests. */
import { silentLogger } from "../../lib/logger.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import { createApp } from "../../routes/app.ts";
import type { LanguageModel } from "../../src/ports/mod.ts";
import type { Backend } from "./backends.ts";
import { makeTestDeps } from "./test_deps.ts";

/** A response body as the server sent it. */
// deno-lint-ignore no-explicit-any
export type Body = any;
/** Calls the app with a JSON body. */
export type Call = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: Body }>;

/**
 * Runs `fn` with a caller of an app on a fresh store of `backend`, judged by `models.judge` (the
 * offline judge when none), the agents on `models.model` (the offline model when none).
 */
export async function withJudgedApp(
  backend: Backend,
  { judge, model }: { judge?: LanguageModel; model?: LanguageModel },
  fn: (call: Call) => Promise<void>,
): Promise<void> {
  await using deps = await makeTestDeps({
    storage: await backend.open(),
    ...(model ? { model } : {}),
  });
  const app = createApp(deps, { logger: silentLogger, ...(judge ? { judge } : {}) });
  await fn(async (method, path, body) => {
    const res = await app.request(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  });
}

/** A judge on the fake OpenAI server at `url`, model "fake-judge", no retries. */
export function fakeJudge(url: string): OpenAiLanguageModel {
  return new OpenAiLanguageModel({
    apiKey: "k",
    baseURL: url,
    mainModel: "fake-judge",
    fastModel: "fake-judge",
    maxRetries: 0,
  });
}
