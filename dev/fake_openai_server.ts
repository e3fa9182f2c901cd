/**
 * @module A fake OpenAI-compatible HTTP server for tests and local development.
 *
 * It serves `POST /v1/chat/completions`, `POST /v1/embeddings` and `GET /v1/models` on
 * 127.0.0.1 and records every request.
 *
 * **Prompt-kind convention.** Every prompt built in `src/domain/prompts/` starts its system message with
 * a first line `[prompt:<kind>]`, e.g. `[prompt:importance]`, where `<kind>` is the prompt's
 * `Prompt.kind`. The fake reads that line to pick the answers scripted for the kind; a request
 * without it counts as kind `"default"`. Real models ignore the line.
 *
 * Unscripted chat requests get a valid value generated from the request's JSON schema
 * (`response_format.json_schema.schema`, or for `{type: "json_object"}` the last fenced ```json
 * block of the system message), so flows run end to end without scripts. Embeddings are
 * deterministic per text (a hash-seeded generator) and deliberately not unit length.
 *
 * Chat answers report `usage.prompt_tokens_details.cached_tokens`: the tokens of the prompt
 * that repeat the prefix of an earlier prompt to the same model, counted in blocks as a
 * provider's prompt cache counts them (`_prompt_prefix_cache.ts`; vLLM's 16-token blocks by
 * default, OpenAI's rule with `promptCache: OPENAI_PROMPT_CACHE`).
 *
 * Run it for local development with `deno run -A dev/fake_openai_server.ts [port]` and point
 * the OpenAI base URL at the printed address.
 */
import type { ChatMessage } from "../src/ports/mod.ts";
import { fnv1a } from "../lib/offline/text.ts";
import { type JsonSchema, sampleJsonSchema } from "../lib/offline/json_schema_sample.ts";
import {
  OPENAI_PROMPT_CACHE,
  type PromptCacheRule,
  PromptPrefixCache,
  VLLM_PREFIX_CACHE,
} from "./_prompt_prefix_cache.ts";

export { OPENAI_PROMPT_CACHE, type PromptCacheRule, VLLM_PREFIX_CACHE };

/** The error a stream broken on purpose (`breakAfter`) ends with. */
const BROKEN_STREAM = "The fake broke the stream";

/** The first line of a system message that names the prompt kind, e.g. `[prompt:importance]`. */
export const PROMPT_KIND_LINE: RegExp = /^\[prompt:([^\]\s]+)\]/;

/** Token counts a scripted answer reports instead of the fake's own estimate. */
export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  /** Reported as `prompt_tokens_details.cached_tokens`; omitted when absent. */
  cachedTokens?: number;
}

/**
 * One scripted answer to a chat completion.
 * - `{ json }`: the value, serialised as the message content.
 * - `{ content }`: raw content, e.g. malformed JSON.
 * - `{ status, retryAfter? }`: an error response, with a `retry-after` header in seconds.
 * - `{ hang: true }`: no answer until the server closes (the client times out first).
 * - `{ usage }` alone: the generated answer, with that usage (`false` omits it).
 *
 * `usage: false` on a `json` or `content` answer omits the `usage` field of the response.
 * `breakAfter: n` on a streamed answer sends n chunks, then breaks the connection; `chunkMs: n`
 * waits n ms between its chunks, as a model writing slowly does.
 */
export type FakeResponse =
  | { json: unknown; usage?: false | FakeUsage; breakAfter?: number; chunkMs?: number }
  | { content: string; usage?: false | FakeUsage; breakAfter?: number; chunkMs?: number }
  | { status: number; retryAfter?: number }
  | { hang: true }
  | { usage: false | FakeUsage };

/**
 * One scripted answer to an embeddings request: an error, a hang, or the usual vectors with
 * usage omitted and/or a forced dimension (as servers that ignore `dimensions` do).
 */
export type FakeEmbeddingResponse =
  | { status: number; retryAfter?: number }
  | { hang: true }
  | { usage?: false; dimensions?: number };

/** A request as the fake received it. */
export interface FakeRequest {
  method: string;
  /** The path, e.g. "/v1/chat/completions". */
  path: string;
  model?: string;
  /** The prompt kind of a chat request ("default" when its system message names none). */
  kind?: string;
  messages?: ChatMessage[];
  /** The texts of an embeddings request. */
  input?: string[];
  /** The parsed JSON body. */
  body: unknown;
  /** Request headers, lower-case, without `authorization` and `api-key`. */
  headers: Record<string, string>;
}

/** A running fake server. */
export interface FakeOpenAi extends AsyncDisposable {
  /** The base URL, ending in `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: FakeRequest[];
  /** Queues answers for the next chat requests of a prompt kind, used in order. */
  script(kind: string, ...responses: FakeResponse[]): void;
  /** Queues answers for the next embeddings requests, used in order. */
  scriptEmbeddings(...responses: FakeEmbeddingResponse[]): void;
  /** Answers still queued, by kind (embeddings under "embeddings"); empty when all were used. */
  pending(): Record<string, number>;
  /**
   * Chat completions answered so far with their prompt tokens and cached prompt tokens (as the
   * fake counted them, scripted usages aside): the share of prompts a provider's cache served.
   */
  promptCacheStats(): PromptCacheStats;
  /** Releases hanging requests and stops the server. */
  close(): Promise<void>;
}

/** What {@linkcode FakeOpenAi.promptCacheStats} counts. */
export interface PromptCacheStats {
  calls: number;
  promptTokens: number;
  cachedTokens: number;
}

/** Options for {@linkcode startFakeOpenAi}. */
export interface FakeOpenAiOptions {
  /**
   * The port to listen on; 0 picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * A delay before every answer, to mimic a real model.
   * @default 0
   */
  latencyMs?: number;
  /**
   * The embedding dimension when a request names none.
   * @default 1536
   */
  embeddingDimensions?: number;
  /**
   * The model ids `GET /v1/models` lists.
   * @default ["fake-main", "fake-fast", "fake-embedding"]
   */
  models?: string[];
  /**
   * How cached prompt tokens are counted.
   * @default VLLM_PREFIX_CACHE (16-token blocks, no minimum)
   */
  promptCache?: PromptCacheRule;
}

/**
 * Starts a fake OpenAI-compatible server on 127.0.0.1.
 *
 * @example
 * ```ts
 * import { startFakeOpenAi } from "./fake_openai_server.ts";
 * await using fake = await startFakeOpenAi();
 * fake.script("importance", { json: { scores: [8] } }, { status: 503 });
 * // point an OpenAI client at fake.url
 * ```
 */
export function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const requests: FakeRequest[] = [];
  const chatScripts = new Map<string, FakeResponse[]>();
  const embeddingScripts: FakeEmbeddingResponse[] = [];
  const closing = new AbortController();
  const latencyMs = options.latencyMs ?? 0;
  const defaultDimensions = options.embeddingDimensions ?? 1536;
  const models = options.models ?? ["fake-main", "fake-fast", "fake-embedding"];
  const promptCache = new PromptPrefixCache(options.promptCache);
  const cacheStats: PromptCacheStats = { calls: 0, promptTokens: 0, cachedTokens: 0 };

  async function handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/v1/models") {
      return Response.json({
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "simulacra-fake" })),
      });
    }
    const isChat = path === "/v1/chat/completions";
    if (req.method !== "POST" || (!isChat && path !== "/v1/embeddings")) {
      return apiError(404, { message: `Unknown route ${req.method} ${path}`, code: "not_found" });
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = await req.json();
      if (typeof parsed !== "object" || parsed === null) throw new TypeError("not an object");
      body = parsed as Record<string, unknown>;
    } catch {
      return apiError(400, {
        message: "The body is not a JSON object",
        code: "invalid_request_error",
      });
    }
    const record: FakeRequest = {
      method: req.method,
      path,
      model: typeof body.model === "string" ? body.model : undefined,
      body,
      headers: safeHeaders(req.headers),
    };
    if (isChat) {
      record.messages = Array.isArray(body.messages) ? body.messages as ChatMessage[] : [];
      record.kind = promptKind(record.messages);
    } else {
      record.input = typeof body.input === "string" ? [body.input] : (body.input as string[]);
    }
    requests.push(record);
    if (!/^Bearer \S+/.test(req.headers.get("authorization") ?? "")) {
      return apiError(401, { message: "Missing bearer token", code: "invalid_api_key" });
    }

    const scripted = isChat
      ? chatScripts.get(record.kind ?? "default")?.shift()
      : embeddingScripts.shift();
    if (latencyMs > 0) await wait(latencyMs, closing.signal);
    if (scripted !== undefined && "hang" in scripted) {
      // Holds the request until close(): the client times out first.
      await wait(Number.POSITIVE_INFINITY, closing.signal);
      return apiError(504, { message: "The fake hung up", code: "timeout" });
    }
    if (scripted !== undefined && "status" in scripted) {
      const headers = scripted.retryAfter === undefined
        ? undefined
        : { "retry-after": String(scripted.retryAfter) };
      return apiError(scripted.status, {
        message: `Scripted HTTP ${scripted.status}`,
        code: "scripted",
      }, headers);
    }
    return isChat
      ? chatAnswer(record, body, {
        scripted: scripted as ChatAnswer | undefined,
        promptCache,
        stats: cacheStats,
      })
      : embeddingAnswer(record, body, {
        scripted: scripted as EmbeddingAnswer | undefined,
        defaultDimensions,
      });
  }

  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: options.port ?? 0,
        onListen: () => {},
        // A stream broken on purpose (`breakAfter`) ends here instead of in Deno's default
        // report on stderr, which reads as a failure in the test output.
        onError: (error) => {
          if (!(error instanceof Error && error.message === BROKEN_STREAM)) {
            // deno-lint-ignore no-console
            console.error(error); // as Deno's default does
          }
          return new Response(null, { status: 500 });
        },
      },
      handle,
    );
  } catch (error) {
    return Promise.reject(error);
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing.abort();
    closed ??= server.shutdown();
    return closed;
  };
  return Promise.resolve({
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    script(kind: string, ...responses: FakeResponse[]): void {
      const queue = chatScripts.get(kind) ?? [];
      queue.push(...responses);
      chatScripts.set(kind, queue);
    },
    scriptEmbeddings(...responses: FakeEmbeddingResponse[]): void {
      embeddingScripts.push(...responses);
    },
    pending(): Record<string, number> {
      const out: Record<string, number> = {};
      for (const [kind, queue] of chatScripts) if (queue.length > 0) out[kind] = queue.length;
      if (embeddingScripts.length > 0) out.embeddings = embeddingScripts.length;
      return out;
    },
    promptCacheStats: () => ({ ...cacheStats }),
    close,
    [Symbol.asyncDispose]: close,
  });
}

type ChatAnswer = {
  json?: unknown;
  content?: string;
  usage?: false | FakeUsage;
  breakAfter?: number;
  chunkMs?: number;
};

/** Characters per streamed chunk: a few tokens, as real servers send them. */
const STREAM_CHUNK = 8;
type EmbeddingAnswer = { usage?: false; dimensions?: number };

/** The kind named by the first line of the first system message, or "default". */
function promptKind(messages: readonly ChatMessage[]): string {
  const system = messages.find((m) => m.role === "system" || (m.role as string) === "developer");
  const match = typeof system?.content === "string" ? PROMPT_KIND_LINE.exec(system.content) : null;
  return match?.[1] ?? "default";
}

function chatAnswer(
  record: FakeRequest,
  body: Record<string, unknown>,
  { scripted, promptCache, stats }: {
    scripted: ChatAnswer | undefined;
    promptCache: PromptPrefixCache;
    stats: PromptCacheStats;
  },
): Response {
  const messages = record.messages ?? [];
  let content: string;
  if (scripted?.content !== undefined) content = scripted.content;
  else if (scripted !== undefined && "json" in scripted) content = JSON.stringify(scripted.json);
  else content = generatedContent(messages, body.response_format);

  const cachedTokens = promptCache.cachedTokens(record.model ?? "", messages);
  const promptTokens = Math.ceil(messages.reduce((n, m) => n + String(m.content).length, 0) / 4);
  const usage = scripted?.usage ?? {
    promptTokens,
    completionTokens: Math.ceil(content.length / 4),
    cachedTokens: Math.min(cachedTokens, promptTokens),
  };
  stats.calls++;
  stats.promptTokens += promptTokens;
  stats.cachedTokens += Math.min(cachedTokens, promptTokens);
  if (body.stream === true) {
    const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)
      ?.include_usage === true;
    return streamedAnswer(record, content, {
      usage: withUsage ? usage : false,
      breakAfter: scripted?.breakAfter,
      chunkMs: scripted?.chunkMs,
    });
  }
  return Response.json({
    id: `chatcmpl-fake-${fnv1a(content + messages.length).toString(16)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: record.model ?? "fake",
    choices: [{
      index: 0,
      message: { role: "assistant", content, refusal: null },
      finish_reason: "stop",
      logprobs: null,
    }],
    ...(usage === false ? {} : { usage: usageBody(usage) }),
  });
}

/**
 * A chat completion as server-sent events, the way OpenAI streams: a role chunk, the content in
 * small deltas, a finish chunk, a usage chunk (with `stream_options.include_usage`), `[DONE]`.
 */
function streamedAnswer(
  record: FakeRequest,
  content: string,
  options: { usage: false | FakeUsage; breakAfter?: number; chunkMs?: number },
): Response {
  const id = `chatcmpl-fake-${fnv1a(content).toString(16)}`;
  const base = {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: record.model ?? "fake",
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const events: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < content.length; i += STREAM_CHUNK) {
    events.push(chunk({ content: content.slice(i, i + STREAM_CHUNK) }));
  }
  events.push(chunk({}, "stop"));
  if (options.usage !== false) {
    const u = options.usage;
    events.push({ ...base, choices: [], usage: usageBody(u) });
  }
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.breakAfter !== undefined && sent >= options.breakAfter) {
        controller.error(new Error(BROKEN_STREAM));
        return;
      }
      if (sent < events.length) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(events[sent++])}\n\n`));
        await new Promise((resolve) => setTimeout(resolve, options.chunkMs ?? 0));
      } else {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
      }
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** A usage as OpenAI reports it, with the cached prompt tokens when there are any to say. */
function usageBody(usage: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...usage.cachedTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } },
  };
}

function generatedContent(messages: readonly ChatMessage[], responseFormat: unknown): string {
  const format = responseFormat as
    | { type?: string; json_schema?: { schema?: JsonSchema } }
    | undefined;
  const userText = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  if (format?.type === "json_schema" && format.json_schema?.schema !== undefined) {
    return JSON.stringify(sampleJsonSchema(format.json_schema.schema, { text: userText }));
  }
  if (format?.type === "json_object") {
    const system = messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
    const blocks = [...system.matchAll(/```json\s*\n([\s\S]*?)\n```/g)];
    try {
      const schema = JSON.parse(blocks.at(-1)?.[1] ?? "{}") as JsonSchema;
      return JSON.stringify(sampleJsonSchema(schema, { text: userText }));
    } catch {
      return "{}";
    }
  }
  return userText.length > 0 ? `You said: ${userText.slice(0, 200)}` : "Hello.";
}

function embeddingAnswer(
  record: FakeRequest,
  body: Record<string, unknown>,
  { scripted, defaultDimensions }: {
    scripted: EmbeddingAnswer | undefined;
    defaultDimensions: number;
  },
): Response {
  const texts = (record.input ?? []).map(String);
  const dimensions = scripted?.dimensions ??
    (typeof body.dimensions === "number" ? body.dimensions : defaultDimensions);
  const base64 = body.encoding_format === "base64";
  const tokens = texts.reduce((n, text) => n + Math.ceil(text.length / 4), 0);
  return Response.json({
    object: "list",
    model: record.model ?? "fake-embedding",
    data: texts.map((text, index) => {
      const vector = fakeEmbedding(text, dimensions);
      return {
        object: "embedding",
        index,
        embedding: base64 ? encodeFloat32(vector) : Array.from(vector),
      };
    }),
    ...(scripted?.usage === false
      ? {}
      : { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
  });
}

/**
 * The fake's embedding of a text: `dimensions` values in [-1, 1) from a generator seeded with the
 * text's hash. Not unit length, so clients' normalisation shows.
 */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  let state = fnv1a(text);
  for (let i = 0; i < dimensions; i++) {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1;
  }
  return out;
}

function encodeFloat32(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** An OpenAI-style error response: `{ error: { message, type, param, code } }`. */
function apiError(
  status: number,
  { message, code }: { message: string; code: string },
  headers?: Record<string, string>,
): Response {
  return Response.json(
    { error: { message, type: code, param: null, code } },
    { status, headers },
  );
}

function safeHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (name !== "authorization" && name !== "api-key") out[name] = value;
  }
  return out;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

if (import.meta.main) {
  // `[port] [--openai-cache] [--latency-ms=N]`; on SIGINT or SIGTERM it prints how much of the
  // prompts its cache served, then stops.
  const port = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 8787);
  const latency = Deno.args.find((a) => a.startsWith("--latency-ms="));
  const fake = await startFakeOpenAi({
    port,
    latencyMs: latency === undefined ? 0 : Number(latency.split("=")[1]),
    ...Deno.args.includes("--openai-cache") ? { promptCache: OPENAI_PROMPT_CACHE } : {},
  });
  const say = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(`${text}\n`));
  say(`Fake OpenAI listening on ${fake.url}`);
  const stop = () => {
    const s = fake.promptCacheStats();
    const share = s.promptTokens === 0 ? 0 : (100 * s.cachedTokens) / s.promptTokens;
    say(
      `Chat completions: ${s.calls}; prompt tokens: ${s.promptTokens}; cached: ${s.cachedTokens} (${
        share.toFixed(1)
      }%)`,
    );
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
