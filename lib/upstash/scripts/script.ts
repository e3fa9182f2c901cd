/**
 * @module A Lua script of the hosted backend with its argument encoder and reply decoder, and the
 * runner that sends it. Every script file in this folder exports one {@linkcode Script}.
 *
 * Scripts run atomically: Redis executes a script without interleaving any other client's
 * command. Every key a script touches is passed in KEYS (none is built inside Lua, except the
 * record keys of `memories_since.ts`, from a prefix passed in ARGV).
 */
import { ReadBatcher, type RedisPipeline } from "../read_batcher.ts";
import { redisCall, type RedisClient } from "../redis_calls.ts";

/** What a script is sent with. */
export interface ScriptCall {
  keys: string[];
  args: string[];
}

/** One Lua script: its source, how its input becomes KEYS and ARGV, and how its reply is read. */
export interface Script<I, O> {
  /** What a failure says could not be done, e.g. "append memories". */
  readonly action: string;
  readonly lua: string;
  encode(input: I): ScriptCall;
  /** Reads the raw reply (see `RedisClient`); throws the store's errors for refusals. */
  decode(reply: unknown, input: I): O;
}

/** Options of {@linkcode ScriptRunner.run}. */
export interface RunOptions {
  /**
   * Queue the script in the shared read pipeline (see `ReadBatcher`), for scripts whose order
   * relative to other commands started at the same time does not matter. @default false
   */
  pipelined?: boolean;
  /**
   * Send it ahead of the shared pipeline's next request instead, or alone after this many ms
   * (`ReadBatcher.ride`): for writes nobody reads closely. Implies `pipelined`.
   */
  rideMs?: number;
}

/**
 * Runs scripts with EVALSHA, falling back to EVAL (one more request, once per server) when Redis
 * does not have the script cached. Failures of the call become `store_unavailable`.
 */
export class ScriptRunner {
  readonly #redis: RedisClient;
  readonly #reads: ReadBatcher;
  readonly #loaded = new Map<string, Loaded>();

  constructor(redis: RedisClient, reads?: ReadBatcher) {
    this.#redis = redis;
    this.#reads = reads ?? new ReadBatcher(redis);
  }

  run<I, O>(script: Script<I, O>, input: I, options: RunOptions = {}): Promise<O> {
    const { keys, args } = script.encode(input);
    const loaded = this.#load(script.lua);
    return redisCall(script.action, async () => {
      const reply = options.pipelined || options.rideMs !== undefined
        ? await this.#queued(loaded, { keys, args }, options.rideMs)
        : await loaded.exec(keys, args);
      return script.decode(reply, input);
    });
  }

  async #queued(loaded: Loaded, call: ScriptCall, rideMs?: number): Promise<unknown> {
    let sha = "";
    const ready = loaded.sha1().then((hash) => sha = hash);
    const add = (p: RedisPipeline) => p.evalsha(sha, call.keys, call.args);
    try {
      return await (rideMs === undefined
        ? this.#reads.read(add, ready)
        : this.#reads.ride(add, { ready, waitMs: rideMs }));
    } catch (error) {
      if (!String(error).toLowerCase().includes("noscript")) throw error;
      return await this.#redis.eval(loaded.source, call.keys, call.args);
    }
  }

  #load(source: string): Loaded {
    let loaded = this.#loaded.get(source);
    if (!loaded) this.#loaded.set(source, loaded = load(this.#redis, source));
    return loaded;
  }
}

interface Loaded {
  readonly source: string;
  exec(keys: string[], args: string[]): Promise<unknown>;
  sha1(): Promise<string>;
}

/**
 * Wraps `redis.createScript()`, created on first use: the client starts hashing the script as
 * soon as it is created, and a script created but never run would leave that work pending.
 */
function load(redis: RedisClient, source: string): Loaded {
  let script: ReturnType<RedisClient["createScript"]> | undefined;
  let sha1: Promise<string> | undefined;
  return {
    source,
    exec(keys, args) {
      script ??= redis.createScript(source);
      return script.exec(keys, args);
    },
    sha1() {
      sha1 ??= crypto.subtle.digest("SHA-1", new TextEncoder().encode(source)).then((hash) =>
        [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("")
      );
      return sha1;
    },
  };
}
