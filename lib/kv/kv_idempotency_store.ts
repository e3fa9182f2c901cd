/**
 * @module The embedded IdempotencyStore: first-writer-wins values per key in Deno KV.
 *
 * `["idem", scope, key]` → a blob head (`_kv_blob.ts`), or a `Deno.KvU64` for the unit of
 * work's claim counters; values over 60 KB (e.g. a large tick result) spill into
 * `["idem_part", scope, key, gen, i]` in the same atomic operation. A claim is
 * one atomic operation checked for "no value yet" (a null versionstamp), so of concurrent
 * claims exactly one stores its value and every other one reads it. A time to live is the
 * head's `expireIn`; its parts expire a minute later, so a head read just before it expires
 * finds them (Deno KV deletes expired keys lazily: a value may be read a while after its time).
 * A `putMany` of many small values without a time to live writes them in packs instead, many
 * to a KV value (`_claim_packs.ts`); a key's own head wins over them.
 */
import type { Claim, IdempotencyStore, KeepOptions, KeepValue } from "../../src/ports/mod.ts";
import { type BlobHead, blobWrites, readBlob } from "./_kv_blob.ts";
import {
  markerKey,
  PACK_MIN,
  PACKED_MAX,
  packedText,
  packPrefix,
  removeFromPacks,
  writePacks,
} from "./_claim_packs.ts";
import {
  addWrites,
  assertKeySize,
  decodeJson,
  deleteKey,
  deletePrefixes,
  encodeJson,
  getAll,
  guard,
  type KvWrite,
  LIMITS,
  listAll,
  planBatches,
  utf8Length,
} from "./_kv_support.ts";

/** Configuration of {@linkcode KvIdempotencyStore}. */
export interface KvIdempotencyStoreOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
}

/** Rounds before giving up on a key that keeps changing under a read or a put. */
const ATTEMPTS = 8;

const encoder = new TextEncoder();

/** Keys per `getMany` (Deno KV's limit). */
const KV_GET_MANY = 10;

/** The KV key of an idempotency key's head (shared with the unit of work's claims). */
export function headKey(scope: string, key: string): Deno.KvKey {
  return ["idem", scope, key];
}

/** Where an idempotency value's parts go (shared with the unit of work's claims). */
export function partPrefix(scope: string, key: string): Deno.KvKey {
  return ["idem_part", scope, key];
}

/** How much longer than its head a value's parts are kept. */
const PART_MARGIN_MS = 60_000;

/**
 * Adds to `op` the writes that store `bytes` as generation `gen` of a key, expiring as `options`
 * say (shared with the unit of work's claims).
 *
 * @throws {SimulacraError} `payload_too_large` above ~600 KB of JSON.
 */
export function addValueWrites(
  op: Deno.AtomicOperation,
  { scope, key, gen, bytes, previous }: {
    scope: string;
    key: string;
    gen: number;
    bytes: Uint8Array;
    previous: BlobHead | null;
  },
  options?: KeepOptions,
): Deno.AtomicOperation {
  const { head, writes } = blobWrites(partPrefix(scope, key), bytes, {
    gen,
    previous,
    what: "idempotent result",
  });
  if (options?.ttlMs === undefined) return addWrites(op, writes).set(headKey(scope, key), head);
  const expireIn = Math.max(1, Math.ceil(options.ttlMs));
  return addWrites(op, writes, { expireIn: expireIn + PART_MARGIN_MS })
    .set(headKey(scope, key), head, { expireIn });
}

/** Idempotency keys in Deno KV. Values are stored as JSON and returned as parsed JSON. */
export class KvIdempotencyStore implements IdempotencyStore {
  readonly #kv: Deno.Kv;

  constructor(options: KvIdempotencyStoreOptions) {
    this.#kv = options.kv;
  }

  /**
   * Stores `write.value` unless a value is stored already (atomic); returns what is stored.
   *
   * @throws {SimulacraError} `payload_too_large` above ~600 KB of JSON.
   */
  async claim<T>(scope: string, key: string, keep: KeepValue<T>): Promise<Claim<T>> {
    assertKeySize(headKey(scope, key), "idempotency key");
    const bytes = encodeJson(keep.value ?? null);
    const write = { scope, key, gen: 1, bytes, previous: null };
    return await guard("claim an idempotency key", async () => {
      // The first attempt takes the scope to have no packs (the common case: no read first).
      let marker: Deno.KvEntryMaybe<unknown> = {
        key: markerKey(scope),
        value: null,
        versionstamp: null,
      };
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const op = this.#kv.atomic()
          .check({ key: headKey(scope, key), versionstamp: null })
          .check(marker);
        const result = await addValueWrites(op, write, keep).commit();
        if (result.ok) return { created: true, value: decodeJson<T>(bytes) };
        const found = await this.#lookup<T>(scope, key);
        if (found.stored !== undefined) return { created: false, value: found.stored };
        marker = found.marker;
      }
      throw new Error("The idempotency key kept changing");
    });
  }

  /** The stored value, or null. */
  async get<T>(scope: string, key: string): Promise<T | null> {
    assertKeySize(headKey(scope, key), "idempotency key");
    return await guard("read an idempotency key", async () => {
      const stored = await this.#read<T>(scope, key);
      return stored === undefined ? null : stored;
    });
  }

  /**
   * Overwrites the value of a key.
   *
   * @throws {SimulacraError} `payload_too_large` above ~600 KB of JSON.
   */
  async put<T>(scope: string, key: string, keep: KeepValue<T>): Promise<void> {
    assertKeySize(headKey(scope, key), "idempotency key");
    const bytes = encodeJson(keep.value ?? null);
    await guard("store an idempotency result", async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const entry = await this.#kv.get<BlobHead>(headKey(scope, key));
        const gen = (entry.value?.gen ?? 0) + 1;
        const write = { scope, key, gen, bytes, previous: entry.value };
        const op = addValueWrites(this.#kv.atomic().check(entry), write, keep);
        if ((await op.commit()).ok) return;
      }
      throw new Error("The idempotency key kept changing");
    });
  }

  /**
   * Overwrites many keys in as few commits as Deno KV's limits allow (hundreds of small values
   * each). Unlike `put`, no head is checked: a put reads and checks a head only to delete the
   * parts of a large earlier value, so a key whose head has parts, or whose new value needs
   * parts, is put alone; two writers of one key race as two puts do.
   *
   * @throws {SimulacraError} `payload_too_large` above ~600 KB of JSON.
   */
  async putMany<T>(
    scope: string,
    writes: readonly { key: string; value: T }[],
    keep?: KeepOptions,
  ): Promise<void> {
    for (const { key } of writes) assertKeySize(headKey(scope, key), "idempotency key");
    const texts = writes.map(({ value }) => JSON.stringify(value ?? null));
    const heads = await guard("read idempotency keys", () => this.#heads(scope, writes));
    const packed = writes.length >= PACK_MIN && keep?.ttlMs === undefined;
    const fits = texts.map((text) => utf8Length(text) <= (packed ? PACKED_MAX : LIMITS.partBytes));
    const alone = (i: number) => !fits[i] || heads[i]?.parts !== undefined;
    for (const [i, { key, value }] of writes.entries()) {
      if (alone(i)) await this.put(scope, key, { value, ...keep });
    }
    const rest = [...writes.keys()].filter((i) => !alone(i));
    if (packed) {
      await guard("store idempotency results", async () => {
        const entries = rest.map((i) => ({ key: writes[i].key, text: texts[i] }));
        await writePacks(this.#kv, scope, entries);
        // Their heads would win over the packs: gone, now that the packs hold the new values.
        const stale = rest.filter((i) => heads[i] !== null)
          .map((i) => deleteKey(headKey(scope, writes[i].key)));
        for (const batch of planBatches(stale)) {
          if (batch.length > 0) await addWrites(this.#kv.atomic(), batch).commit();
        }
      });
      return;
    }
    const sets: KvWrite[] = rest.map((i) => {
      const bytes = encoder.encode(texts[i]);
      const head: BlobHead = { gen: (heads[i]?.gen ?? 0) + 1, size: bytes.length, data: bytes };
      return {
        op: "set" as const,
        key: headKey(scope, writes[i].key),
        value: head,
        bytes: bytes.length + 32,
      };
    });
    const expireIn = keep?.ttlMs === undefined ? undefined : Math.max(1, Math.ceil(keep.ttlMs));
    await guard("store idempotency results", async () => {
      for (const batch of planBatches(sets)) {
        if (batch.length > 0) await addWrites(this.#kv.atomic(), batch, { expireIn }).commit();
      }
    });
  }

  /**
   * The heads of `entries`' keys (null where none). A scope holding few keys (an import's new
   * agent: none) is listed in one scan, stopped at twice as many keys as asked for; a fuller one
   * is read ten keys to a `getMany`, all at once.
   */
  async #heads(scope: string, entries: readonly { key: string }[]): Promise<(BlobHead | null)[]> {
    const listed = new Map<string, BlobHead>();
    const limit = entries.length * 2 + 1;
    for await (const e of this.#kv.list<BlobHead>({ prefix: ["idem", scope] }, { limit })) {
      listed.set(e.key[2] as string, e.value);
    }
    if (listed.size < limit) return entries.map((e) => listed.get(e.key) ?? null);
    const reads: Promise<Deno.KvEntryMaybe<BlobHead>[]>[] = [];
    for (let i = 0; i < entries.length; i += KV_GET_MANY) {
      const keys = entries.slice(i, i + KV_GET_MANY).map((e) => headKey(scope, e.key));
      reads.push(this.#kv.getMany<BlobHead[]>(keys));
    }
    return (await Promise.all(reads)).flat().map((entry) => entry.value);
  }

  /** Forgets these keys of a scope, their values' parts too, in as few commits as fit. */
  async remove(scope: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) assertKeySize(headKey(scope, key), "idempotency key");
    await guard("forget idempotency keys", async () => {
      // Heads and pack marker in one read: only heads naming parts have any to list (a list
      // per key was ~11% of a tick's KV calls, issue 25); only a scope with packs has packs.
      const heads = keys.map((key) => headKey(scope, key));
      const read = await getAll(this.#kv, [...heads, markerKey(scope)]);
      const split = keys.filter((_, i) => (read[i].value as BlobHead | null)?.parts !== undefined);
      const parts = await Promise.all(
        split.map((key) => listAll(this.#kv, { prefix: partPrefix(scope, key) })),
      );
      const writes = [
        ...heads.map(deleteKey),
        ...parts.flat().map((entry) => deleteKey(entry.key)),
      ];
      for (const batch of planBatches(writes)) {
        if (batch.length > 0) await addWrites(this.#kv.atomic(), batch).commit();
      }
      if (read[keys.length].versionstamp !== null) await removeFromPacks(this.#kv, scope, keys);
    });
  }

  /** Forgets every key of a scope. */
  async clear(scope: string): Promise<void> {
    assertKeySize(headKey(scope, ""), "idempotency scope");
    await guard("forget idempotency keys", async () => {
      await this.#kv.delete(markerKey(scope));
      await deletePrefixes(this.#kv, [["idem", scope], ["idem_part", scope], packPrefix(scope)]);
    });
  }

  /** The stored value, or undefined when there is none. */
  async #read<T>(scope: string, key: string): Promise<T | undefined> {
    return (await this.#lookup<T>(scope, key)).stored;
  }

  /**
   * The stored value (undefined when there is none), and the scope's pack marker as read with
   * the key's head (one `getMany`): a head wins, else the packs are looked in.
   */
  async #lookup<T>(
    scope: string,
    key: string,
  ): Promise<{ stored: T | undefined; marker: Deno.KvEntryMaybe<unknown> }> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const [entry, marker] = await this.#kv.getMany<[BlobHead | Deno.KvU64, unknown]>([
        headKey(scope, key),
        markerKey(scope),
      ]);
      if (entry.value === null) {
        const text = await packedText(this.#kv, { scope, key }, marker);
        return { stored: text === undefined ? undefined : JSON.parse(text) as T, marker };
      }
      // A count the unit of work keeps (`CommitRequest.claim.counter`).
      if (entry.value instanceof Deno.KvU64) {
        return { stored: Number(entry.value.value) as T, marker };
      }
      const bytes = await readBlob(this.#kv, partPrefix(scope, key), entry.value);
      if (bytes !== null) return { stored: decodeJson<T>(bytes), marker };
    }
    throw new Error("The idempotency key kept changing while being read");
  }
}
