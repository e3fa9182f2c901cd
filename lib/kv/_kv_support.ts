/** @module Deno KV plumbing shared by the embedded stores: error translation, limits, batching, JSON bytes. */
import { SimulacraError, StoreUnavailableError } from "../../src/domain/mod.ts";
import { concatBytes } from "../bytes.ts";

/**
 * Deno KV's hard limits (denokv `limits.rs`): 1000 mutations, 819,200 bytes of keys and values,
 * 81,920 bytes of keys per atomic operation; 65,536 bytes per value; 2,048 bytes per key. The
 * budgets below keep a margin for serialisation overhead and for the commit's own head write.
 */
export const LIMITS = {
  /** Mutations per atomic operation we plan for. */
  mutations: 900,
  /** Key plus value bytes per atomic operation we plan for. */
  bytes: 700_000,
  /** Key bytes per atomic operation we plan for. */
  keyBytes: 70_000,
  /** Bytes per stored value part (KV allows 65,536 per value). */
  partBytes: 60_000,
  /** The longest key we let a caller build (KV allows 2,048; parts may be appended). */
  keyMax: 1_500,
} as const;

/**
 * Runs a KV call and translates what it throws: {@linkcode SimulacraError}s pass through,
 * anything else becomes a {@linkcode StoreUnavailableError} that keeps the original as `cause`.
 * Messages name the action only, never user text.
 *
 * @param action What failed, as "Cannot <action>", e.g. "append memories".
 */
export async function guard<T>(action: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw storeError(action, error);
  }
}

/** The error {@linkcode guard} throws for `error`. */
export function storeError(action: string, error: unknown): SimulacraError {
  if (error instanceof SimulacraError) return error;
  return new StoreUnavailableError(
    `Cannot ${action}: the embedded store (Deno KV) failed, check its file and disk`,
    { cause: error },
  );
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A string's UTF-8 length without encoding it (a lone surrogate counts 3, as its U+FFFD does):
 * batches of thousands of keys are measured on every bulk write, and encoding each part was
 * most of an import's planning time (issue 25).
 */
export function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length; // one native scan: most text is ASCII
  let total = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) total += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        total += 2; // two UTF-16 units, four bytes
        i++;
        continue;
      }
      total += 2;
    } else total += 2;
  }
  return total;
}

/** The size Deno KV's key encoding gives a key, slightly over-estimated. */
export function keyBytes(key: Deno.KvKey): number {
  let total = 0;
  for (const part of key) {
    if (typeof part === "string") total += utf8Length(part) + 3;
    else if (part instanceof Uint8Array) total += part.length + 3;
    else total += 10;
  }
  return total;
}

/**
 * Throws `invalid_request` when a key built from caller-supplied names is too long for KV.
 *
 * @param what The kind of name, for the message, e.g. "lock key".
 */
export function assertKeySize(key: Deno.KvKey, what: string): void {
  if (keyBytes(key) > LIMITS.keyMax) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot use a ${what} longer than ${LIMITS.keyMax} bytes: shorten it`,
    );
  }
}

/** JSON as UTF-8 bytes: a stored value whose size is exact, unlike a structured clone's. */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** The value {@linkcode encodeJson} encoded. */
export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(decoder.decode(bytes)) as T;
}

/** Splits bytes into parts of at most {@linkcode LIMITS.partBytes} (one empty part for none). */
export function splitBytes(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length === 0) return [bytes];
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += LIMITS.partBytes) {
    parts.push(bytes.subarray(i, i + LIMITS.partBytes));
  }
  return parts;
}

/** Joins parts back into one byte array. */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0] : concatBytes(parts);
}

/** One planned mutation: a set (with the value's byte size) or a delete. */
export type KvWrite =
  | { op: "set"; key: Deno.KvKey; value: unknown; bytes: number }
  | { op: "delete"; key: Deno.KvKey };

/** A set of a byte value. */
export function setBytes(key: Deno.KvKey, value: Uint8Array): KvWrite {
  return { op: "set", key, value, bytes: value.length };
}

/** A set of a small structured value (its size estimated from its JSON). */
export function setValue(key: Deno.KvKey, value: unknown): KvWrite {
  return { op: "set", key, value, bytes: JSON.stringify(value).length * 2 + 16 };
}

/** A delete. */
export function deleteKey(key: Deno.KvKey): KvWrite {
  return { op: "delete", key };
}

/** Adds planned writes to an atomic operation (its sets expiring as `options` say). */
export function addWrites(
  op: Deno.AtomicOperation,
  writes: readonly KvWrite[],
  options?: { expireIn?: number },
): Deno.AtomicOperation {
  for (const w of writes) {
    if (w.op === "set") op.set(w.key, w.value, options);
    else op.delete(w.key);
  }
  return op;
}

/**
 * Packs writes into batches that each fit one atomic operation, keeping room in the last batch
 * for `reserve` (e.g. the head key a commit sets alongside; its bytes count against both the
 * byte and the key budgets). Order is kept; the result always has at least one batch.
 */
export function planBatches(
  writes: readonly KvWrite[],
  reserve: { mutations: number; bytes: number } = { mutations: 0, bytes: 0 },
): KvWrite[][] {
  const batches: KvWrite[][] = [[]];
  let count = 0, bytes = 0, keys = 0;
  for (const w of writes) {
    const k = keyBytes(w.key);
    const b = k + (w.op === "set" ? w.bytes : 0);
    if (
      count + 1 > LIMITS.mutations || bytes + b > LIMITS.bytes || keys + k > LIMITS.keyBytes
    ) {
      batches.push([]);
      count = 0, bytes = 0, keys = 0;
    }
    batches[batches.length - 1].push(w);
    count += 1, bytes += b, keys += k;
  }
  if (
    count + reserve.mutations > LIMITS.mutations || bytes + reserve.bytes > LIMITS.bytes ||
    keys + reserve.bytes > LIMITS.keyBytes
  ) {
    batches.push([]);
  }
  return batches;
}

/** Keys per `getMany` (Deno KV's limit). */
const GET_MANY = 10;

/**
 * The entries of any number of keys, in their order: ten keys to a `getMany`, all at once, so a
 * few keys cost one read of the database rather than one each.
 */
export async function getAll(
  kv: Deno.Kv,
  keys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<unknown>[]> {
  const reads: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY) {
    reads.push(kv.getMany(keys.slice(i, i + GET_MANY)));
  }
  return (await Promise.all(reads)).flat();
}

/** Reads every entry under a prefix (KV pages through it internally). */
export async function listAll<T>(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
): Promise<Deno.KvEntry<T>[]> {
  const entries: Deno.KvEntry<T>[] = [];
  for await (const entry of kv.list<T>(selector, { batchSize: 1000 })) entries.push(entry);
  return entries;
}

/**
 * Deletes every entry under the prefixes, in as many atomic operations as KV's limits need
 * (not one transaction: callers delete what nothing reads any more). Returns how many entries
 * were under each prefix.
 */
export async function deletePrefixes(
  kv: Deno.Kv,
  prefixes: readonly Deno.KvKey[],
): Promise<number[]> {
  const counts: number[] = [];
  const writes: KvWrite[] = [];
  for (const prefix of prefixes) {
    const entries = await listAll(kv, { prefix });
    counts.push(entries.length);
    for (const entry of entries) writes.push(deleteKey(entry.key));
  }
  for (const batch of planBatches(writes)) {
    if (batch.length > 0) await addWrites(kv.atomic(), batch).commit();
  }
  return counts;
}
