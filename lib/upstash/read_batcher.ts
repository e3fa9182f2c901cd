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

  /**
   * With `windowMs`, commands are gathered that long after the first instead of for two
   * microtasks: for writes nobody waits on closely (usage counters), so those of concurrent
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
      if (this.#windowMs !== undefined) setTimeout(() => this.#flush(), this.#windowMs);
      else void Promise.resolve().then().then(() => this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
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
