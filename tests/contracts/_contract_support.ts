/** @module Shared plumbing of the storage contract suites: case registration, skips, fixtures. */
import assert from "node:assert/strict";
import { AgentId, type AgentScope, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { SimulacraError } from "../../src/domain/errors.ts";
import type { UsageRecord } from "../../src/domain/usage.ts";
import { addMinutes, type GameTime } from "../../src/domain/time/game_time.ts";

/** Opens a fresh {@linkcode Storage}; each case closes it. */
export type OpenStorage = () => Promise<Storage>;

/** Options of every contract suite. */
export interface ContractOptions {
  /**
   * Cases an adapter cannot meet, by case name without the `${name}: ` prefix, each with the
   * reason. A skipped case still shows in the output as ignored, with its reason in the name.
   * @default no skips
   */
  skip?: Partial<Record<string, string>>;
}

/** Registers contract cases and remembers their names, so a misspelt skip fails loudly. */
export class ContractCases {
  readonly #name: string;
  readonly #open: OpenStorage;
  readonly #skip: Partial<Record<string, string>>;
  readonly #names = new Set<string>();

  constructor(name: string, open: OpenStorage, options: ContractOptions = {}) {
    this.#name = name;
    this.#open = open;
    this.#skip = options.skip ?? {};
  }

  /** Registers one `Deno.test` that opens a fresh storage, runs `fn` and closes it. */
  add(caseName: string, fn: (storage: Storage) => Promise<void>): void {
    if (this.#names.has(caseName)) throw new Error(`Duplicate contract case "${caseName}"`);
    this.#names.add(caseName);
    const reason = this.#skip[caseName];
    const open = this.#open;
    Deno.test({
      name: `${this.#name}: ${caseName}${reason === undefined ? "" : ` (skipped: ${reason})`}`,
      ignore: reason !== undefined,
      async fn() {
        const storage = await open();
        try {
          await fn(storage);
        } finally {
          await storage.close();
        }
      },
    });
  }

  /** Throws when a skip names no registered case (a typo would silently run nothing). */
  assertSkipsKnown(): void {
    const unknown = Object.keys(this.#skip).filter((key) => !this.#names.has(key));
    if (unknown.length > 0) {
      throw new Error(`Unknown contract cases in skip: ${unknown.map((k) => `"${k}"`).join(", ")}`);
    }
  }

  /** Every case name registered so far. */
  get names(): string[] {
    return [...this.#names];
  }
}

/** A short random suffix, so cases never collide on a shared backend. */
export function suffix(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 12);
}

/** A unique world id. */
export function newWorldId(): WorldId {
  return WorldId.parse(`w-${suffix()}`);
}

/** A unique agent scope (new world and new agent unless given). */
export function newScope(worldId: WorldId = newWorldId(), agent = `a-${suffix()}`): AgentScope {
  return { worldId, agentId: AgentId.parse(agent) };
}

/** A memory id. */
export function mid(id: string): MemoryId {
  return MemoryId.parse(id);
}

/** The fixed game time the fixtures count from. */
export const T0 = "2023-02-13T07:00:00" as GameTime;

/** `T0` plus some game minutes. */
export function at(minutes: number): GameTime {
  return addMinutes(T0, minutes);
}

/** A valid observation in the scope; fields can be overridden. */
export function makeMemory(
  scope: AgentScope,
  id: string,
  overrides: Partial<MemoryRecord> = {},
): MemoryRecord {
  return {
    id: mid(id),
    worldId: scope.worldId,
    agentId: scope.agentId,
    kind: "observation",
    description: `Memory ${id} of ${scope.agentId}`,
    createdAt: T0,
    lastAccessedAt: T0,
    importance: 3,
    provenance: "witnessed",
    ...overrides,
  };
}

/** Memories `prefix-000`, `prefix-001`… created one minute apart from `T0 + start`. */
export function makeMemories(
  scope: AgentScope,
  prefix: string,
  count: number,
  start = 0,
): MemoryRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const time = at(start + i);
    const id = `${prefix}-${String(i).padStart(3, "0")}`;
    return makeMemory(scope, id, { createdAt: time, lastAccessedAt: time });
  });
}

/** One model call's usage (100 prompt and 10 completion tokens, for importance), as overridden. */
export function usage(overrides: Partial<UsageRecord>): UsageRecord {
  return {
    operation: "importance",
    model: "test-model",
    estimated: false,
    calls: 1,
    promptTokens: 100,
    completionTokens: 10,
    ...overrides,
  };
}

/** Asserts that `promise` rejects with a {@linkcode SimulacraError} of `code`. */
export async function assertRejectsCode(
  promise: Promise<unknown>,
  code: SimulacraError["code"],
): Promise<SimulacraError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `Expected a rejection with code "${code}"`);
  assert.ok(caught instanceof SimulacraError, `Expected a SimulacraError, got ${caught}`);
  assert.equal(caught.code, code);
  return caught;
}

/** Waits `ms` real milliseconds: TTLs in a real store (Redis, Deno KV) pass only in real time. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
