/** @module Private to lib/openai: the SDK client and retry settings both OpenAI adapters share. */
import { OpenAI } from "openai";
import { ConfigError, type UsageSink } from "../../src/domain/mod.ts";
import { hostOf, withRetries, type WithRetriesOptions } from "./retry.ts";

/** The connection options common to {@linkcode OpenAiEmbedder} and {@linkcode OpenAiLanguageModel}. */
export interface OpenAiConnectionOptions {
  /** The API key; servers that need none (Ollama) accept any non-empty value. */
  apiKey: string;
  /**
   * The server's base URL, ending in `/v1`.
   * @default "https://api.openai.com/v1"
   */
  baseURL?: string;
  /**
   * The timeout of one attempt, in milliseconds.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Retries after the first attempt on timeouts, connection errors, 429 and 5xx.
   * @default 3
   */
  maxRetries?: number;
  /**
   * Receives every call's usage (the language model's repair attempt included).
   * @default none
   */
  onUsage?: UsageSink;
  /**
   * The fetch the SDK uses.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Waits between retries; tests pass a fake.
   * @default a setTimeout-based sleep
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The jitter source of the backoff, a number in [0, 1).
   * @default Math.random
   */
  random?: () => number;
}

/** Retry settings of a connection: {@linkcode WithRetriesOptions} less the failed action. */
export type RetrySettings = Omit<WithRetriesOptions, "action">;

/** An SDK client with the SDK's own retries off (ours name the server), and how to retry calls. */
export class OpenAiConnection {
  readonly client: OpenAI;
  /** The server's host, e.g. "api.openai.com". */
  readonly host: string;
  readonly retry: RetrySettings;

  /**
   * @param what names the client in the error, e.g. "model client".
   * @throws {ConfigError} `config_error` when the key is empty or the base URL is not a URL.
   */
  constructor(options: OpenAiConnectionOptions, what: string) {
    const baseURL = options.baseURL ?? "https://api.openai.com/v1";
    this.host = hostOf(baseURL, "OpenAI");
    if (options.apiKey.trim() === "") {
      throw new ConfigError(
        `Cannot create the ${what} for "${this.host}": the API key is empty: set an API key (any non-empty value for servers that need none)`,
      );
    }
    const timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = {
      host: this.host,
      timeoutMs,
      maxRetries: options.maxRetries ?? 3,
      sleep: options.sleep,
      random: options.random,
    };
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL,
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: timeoutMs,
      maxRetries: 0,
      fetch: options.fetch,
    });
  }

  /** Runs one SDK call with {@linkcode withRetries}; `action` names it in the error. */
  call<T>(action: string, operation: () => Promise<T>): Promise<T> {
    return withRetries(operation, { action, ...this.retry });
  }
}
