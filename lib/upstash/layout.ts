/**
 * @module The hosted backend's data layout: every Redis key, and the stored form of the values
 * more than one store writes (documents, idempotency values). The one place each is defined:
 * stores and scripts build keys here, never from another store's parts.
 */
import type { AgentScope, MemoryKind, MemoryStatus } from "../../src/domain/mod.ts";
import type { KeepOptions, MemoryIndex, Versioned } from "../../src/ports/mod.ts";
import { unexpectedReply } from "./redis_calls.ts";

/** Every memory kind, in the order of their created-sets in {@linkcode RedisKeys.memorySets}. */
export const KINDS: readonly MemoryKind[] = ["seed", "observation", "chat", "reflection", "plan"];

/**
 * The 1-based positions of the upkeep sets in {@linkcode RedisKeys.memorySets}, after the kinds':
 * `live` (creation minutes of the live memories), `out` (creation minutes of those moved out of
 * the live set: archived or merged), `outAccessed` / `outImportance` (their last access and
 * importance, while `accessed` / `importance` hold only the live ones), and `superseded`.
 */
export const UPKEEP_SETS = {
  live: 4 + KINDS.length,
  out: 5 + KINDS.length,
  outAccessed: 6 + KINDS.length,
  outImportance: 7 + KINDS.length,
  superseded: 8 + KINDS.length,
} as const;

/** How many sorted sets {@linkcode RedisKeys.memorySets} lists. */
export const MEMORY_SET_COUNT = 8 + KINDS.length;

/** Lua locals naming the positions of the memory sets in KEYS, for scripts that get them all. */
export const MEMORY_SETS_LUA = `
local zsets = ${MEMORY_SET_COUNT}
local live, out = ${UPKEEP_SETS.live}, ${UPKEEP_SETS.out}
local outAccessed, outImportance = ${UPKEEP_SETS.outAccessed}, ${UPKEEP_SETS.outImportance}
local superseded = ${UPKEEP_SETS.superseded}`;

/** The keys of one deployment, all starting with its prefix. */
export class RedisKeys {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** A lease lock; fenced writes of every store check it. */
  lock(key: string): string {
    return this.#key(["lock", key]);
  }

  /** An idempotency key's value (claims of units of work and memory appends write it too). */
  idempotency(scope: string, key: string): string {
    return this.#key(["idem", scope, key]);
  }

  /** A SCAN pattern of every idempotency key of `scope`. */
  idempotencyScope(scope: string): string {
    // The scope is percent-encoded, so it holds no glob characters.
    return `${this.#key(["idem", scope])}:*`;
  }

  /** The hash of a collection's documents within a scope. */
  documents(collection: string, scope: string): string {
    return this.#key(["doc", collection, scope]);
  }

  /**
   * An agent's memory sorted sets: created (every memory), accessed and importance (the live
   * ones), the created-set of each kind in {@linkcode KINDS} order (every memory), then the
   * upkeep sets ({@linkcode UPKEEP_SETS}).
   */
  memorySets(scope: AgentScope): string[] {
    const base = ["mem", scope.worldId, scope.agentId];
    return [
      this.#key([...base, "created"]),
      this.#key([...base, "accessed"]),
      this.#key([...base, "importance"]),
      ...KINDS.map((kind) => this.#key([...base, "kind", kind])),
      ...Object.keys(UPKEEP_SETS).map((set) => this.#key([...base, set])),
    ];
  }

  /** The sorted set of one memory index (of the live memories). */
  memoryIndex(scope: AgentScope, index: MemoryIndex): string {
    const position = index === "created" ? UPKEEP_SETS.live : index === "lastAccessed" ? 2 : 3;
    return this.memorySets(scope)[position - 1];
  }

  /** The created-set of the memories of a status (every kind). */
  memoryStatus(scope: AgentScope, status: MemoryStatus): string {
    const position = status === "all" ? 1 : status === "live" ? UPKEEP_SETS.live : UPKEEP_SETS.out;
    return this.memorySets(scope)[position - 1];
  }

  /** One of the upkeep sets. */
  upkeepSet(scope: AgentScope, set: keyof typeof UPKEEP_SETS): string {
    return this.memorySets(scope)[UPKEEP_SETS[set] - 1];
  }

  /** The created-set of one kind, or of every kind (null). */
  memoryKind(scope: AgentScope, kind: MemoryKind | null): string {
    return this.memorySets(scope)[kind === null ? 0 : 3 + KINDS.indexOf(kind)];
  }

  /**
   * A memory's hash; `id` "" gives the prefix of them all (ids need no encoding: letters,
   * digits, '_' and '-').
   */
  memory(scope: AgentScope, id: string): string {
    return this.#key(["mem", scope.worldId, scope.agentId, "m", id]);
  }

  /** The hash of an agent's half-precision vector copies, by memory id. */
  vectorCopies(scope: AgentScope): string {
    return this.#key(["vq", scope.worldId, scope.agentId]);
  }

  /** A world's event counter ("seq") or log ("log"). */
  events(worldId: string, part: "seq" | "log"): string {
    return this.#key(["events", worldId, part]);
  }

  /** A world's model usage counters. */
  usage(worldId: string): string {
    return this.#key(["usage", worldId]);
  }

  /** A budget subject's spend in a period; `period` absent: the SCAN pattern of all its periods. */
  spend(subject: string, period?: string): string {
    return period === undefined
      ? `${this.#key(["spend", subject])}:*`
      : this.#key(["spend", subject, period]);
  }

  /** An audit log key. */
  audit(parts: readonly string[]): string {
    return this.#key(["audit", ...parts]);
  }

  /** The key prefix of one rate-limit window's counters (`@upstash/ratelimit` adds to it). */
  rateLimit(window: string): string {
    return `${this.prefix}:ratelimit:${window}`;
  }

  /**
   * Joins key parts with ":" after percent-encoding each, so a ":" inside a part (a document
   * id, an idempotency key) can never make two different keys equal.
   */
  #key(parts: readonly string[]): string {
    return [this.prefix, ...parts.map((p) => encodeURIComponent(p))].join(":");
  }
}

/** How an idempotency value is stored: its JSON. */
export function encodeValue(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** A time to live as Redis takes it: whole ms, at least 1; 0 when the value is kept. */
export function ttlArgument(options: KeepOptions | undefined): number {
  const ttl = options?.ttlMs;
  return ttl === undefined ? 0 : Math.max(1, Math.ceil(ttl));
}

/** A document's stored field value: `<version>:<JSON>`. */
export function encodeDocument(version: number, value: unknown): string {
  return `${version}:${JSON.stringify(value) ?? "null"}`;
}

/** Reads a stored field value back (see {@linkcode encodeDocument}). */
export function decodeDocument<T>(id: string, raw: unknown): Versioned<T> {
  const text = String(raw);
  const colon = text.indexOf(":");
  const version = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isInteger(version)) unexpectedReply("read a document");
  return { id, value: JSON.parse(text.slice(colon + 1)) as T, version };
}
