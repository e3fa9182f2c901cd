/** @module The hosted stores' shared read pipeline (see {@linkcode ReadBatcher}). */
import type { RedisClient } from "./redis_calls.ts";

/** A pipeline of the Redis client: commands queued, then sent in one request by `exec`. */
export type RedisPipeline = ReturnType<RedisClient["pipeline"]>;

interface QueuedRead {
  add: (pipeline: RedisPipeline) => void;
  /** Settles before `add` is called (a script's hash being computed). */
  ready?: Promise<unknown>;
  resolve: (reply: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Sends the reads the stores queue in one turn of the event loop as one pipelined request. The
 * client pipelines some commands on its own but sends others (ZRANGE, HGETALL) one request
 * each; reads that a caller starts together (the candidate lists of a retrieval, a page of
 * records) go through here so they share one round trip. Not atomic: use it for reads, and for
 * scripts (each atomic on its own) whose order relative to the other commands does not matter.
 *
 * Not the client's own auto-pipelining (`enableAutoPipelining`, on by default): in
 * @upstash/redis 1.39 it sends HGETALL and ZRANGE alone (its `EXCLUDE_COMMANDS`) and puts reads
 * and writes in two separate pipelines, so a unit of work's lease SET NX and its document reads
 * would take two requests and the reads could reach Redis before the leases
 * (`UnitOfWorkStore.readsFollowBegin`). Routing these reads through it instead measured 15
 * requests for a retrieval (3 here) and 11.0 per town step (2.5; `upstash_storage_cost_test.ts`).
 */
export class ReadBatcher {
  readonly #redis: RedisClient;
  readonly #windowMs: number | undefined;
  #queue: QueuedRead[] = [];
  /** Commands waiting for the next request (see `ride`), and the timer that sends them alone. */
  #riders: QueuedRead[] = [];
  #riderTimer: ReturnType<typeof setTimeout> | undefined;
  #sending = new Set<Promise<void>>();

  /**
   * With `windowMs`, commands are gathered that long after the first instead of for two
   * microtasks: for writes nobody waits on closely (lease renewals), so those of concurrent
   * steps share a request.
   */
  constructor(redis: RedisClient, options: { windowMs?: number } = {}) {
    this.#redis = redis;
    this.#windowMs = options.windowMs;
  }

  /** Queues one read (`add` puts its command on the pipeline); resolves to its raw reply. */
  read(add: (pipeline: RedisPipeline) => void, ready?: Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ add, ready, resolve, reject });
      // Two microtasks: callers that start reads from inside `async` helpers still make it.
      if (this.#queue.length > 1) return;
      if (this.#windowMs !== undefined) setTimeout(() => this.#send(), this.#windowMs);
      else void Promise.resolve().then().then(() => this.#send());
    });
  }

  /**
   * Queues a command that goes out ahead of the next request's reads, or alone after `waitMs`
   * when none goes out meanwhile: for writes nobody reads closely (usage counters), which then
   * cost no request of their own while the stores are busy. A read queued after it sees it.
   */
  ride(
    add: (pipeline: RedisPipeline) => void,
    options: { ready?: Promise<unknown>; waitMs: number },
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#riders.push({ add, ready: options.ready, resolve, reject });
      this.#riderTimer ??= setTimeout(() => {
        this.#riderTimer = undefined;
        if (this.#queue.length === 0) this.#send();
      }, options.waitMs);
    });
  }

  /** Sends what is queued now and waits until every request under way has its reply. */
  async drain(): Promise<void> {
    if (this.#riders.length > 0 || this.#queue.length > 0) this.#send();
    await Promise.all(this.#sending);
  }

  #send(): void {
    const sent = this.#flush();
    this.#sending.add(sent);
    void sent.finally(() => this.#sending.delete(sent));
  }

  async #flush(): Promise<void> {
    const batch = [...this.#riders, ...this.#queue];
    this.#riders = [];
    this.#queue = [];
    clearTimeout(this.#riderTimer);
    this.#riderTimer = undefined;
    if (batch.length === 0) return;
    try {
      await Promise.all(batch.map((item) => item.ready));
      const pipeline = this.#redis.pipeline();
      for (const item of batch) item.add(pipeline);
      const results = await pipeline.exec({ keepErrors: true });
      batch.forEach((item, i) => {
        const entry = results[i] as { result?: unknown; error?: string } | undefined;
        if (entry === undefined || entry.error) item.reject(new Error(entry?.error ?? "no reply"));
        else item.resolve(entry.result);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
