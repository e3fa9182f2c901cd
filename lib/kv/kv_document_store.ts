/**
 * @module The embedded DocumentStore: versioned JSON documents in Deno KV with compare-and-set.
 *
 * A document's head is `["doc", collection, scope, id]` → `{ gen: version, size, data | parts }`;
 * values over 60 KB spill into `["doc_part", collection, scope, id, version, i]`, written in the
 * same atomic operation (see `_kv_blob.ts`). Every write checks the head's versionstamp, so
 * `replace()` is a true compare-and-set: of concurrent writers holding the same version, one wins.
 */
import { ConflictError } from "../../src/domain/mod.ts";
import type {
  DocumentKey,
  DocumentStore,
  FencedWrite,
  ReplaceOptions,
  Versioned,
} from "../../src/ports/mod.ts";
import { type BlobHead, blobPartKeys, blobWrites, readBlob } from "./_kv_blob.ts";
import {
  addWrites,
  assertKeySize,
  decodeJson,
  deletePrefixes,
  encodeJson,
  getAll,
  guard,
  listAll,
} from "./_kv_support.ts";
import { leaseCheck } from "./kv_lock.ts";

/** Configuration of {@linkcode KvDocumentStore}. */
export interface KvDocumentStoreOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
}

/** Reads retried when a concurrent write replaced a large document's parts mid-read. */
const READ_ATTEMPTS = 5;

/** The KV key of a document's head. */
export function headKey(key: DocumentKey): Deno.KvKey {
  return ["doc", key.collection, key.scope, key.id];
}

/** The KV key prefix of a large document's parts. */
export function partPrefix(key: DocumentKey): Deno.KvKey {
  return ["doc_part", key.collection, key.scope, key.id];
}

/** Document heads remembered for {@linkcode KvDocumentStore.knownHead} (all forgotten when full). */
const KNOWN_HEADS = 10_000;

/** A head as last read or written here, without its inline bytes (a commit needs only these). */
type KnownHead = { head: Omit<BlobHead, "data"> | null; versionstamp: string | null };

/** A document's key in {@linkcode KvDocumentStore}'s known heads: lengths first, so unambiguous. */
function knownKey({ collection, scope, id }: DocumentKey): string {
  return `${collection.length}:${scope.length}:${collection}${scope}${id}`;
}

/** Versioned JSON documents in Deno KV. */
export class KvDocumentStore implements DocumentStore {
  readonly #kv: Deno.Kv;
  /**
   * Each document's head as this store last read or wrote it, by key: a unit of work's commit
   * checks against these instead of reading the heads again (`knownHead`).
   */
  readonly #heads = new Map<string, KnownHead>();

  constructor(options: KvDocumentStoreOptions) {
    this.#kv = options.kv;
  }

  /** The document, or null. */
  async get<T>(key: DocumentKey): Promise<Versioned<T> | null> {
    assertKeySize(headKey(key), "document key");
    return await guard("read a document", async () => {
      for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
        const entry = await this.#kv.get<BlobHead>(headKey(key));
        this.noteHead(key, entry);
        if (entry.value === null) return null;
        const bytes = await readBlob(this.#kv, partPrefix(key), entry.value);
        if (bytes !== null) {
          return { id: key.id, value: decodeJson<T>(bytes), version: entry.value.gen };
        }
      }
      throw new Error("The document kept changing while being read");
    });
  }

  /**
   * The documents of these keys, in their order (null where none): their heads in one read of
   * KV (ten to a `getMany`), then the parts of any large one.
   */
  async getMany<T>(keys: readonly DocumentKey[]): Promise<(Versioned<T> | null)[]> {
    for (const key of keys) assertKeySize(headKey(key), "document key");
    const heads = await guard("read documents", () => getAll(this.#kv, keys.map(headKey)));
    return await this.fromHeads<T>(keys, heads);
  }

  /**
   * {@linkcode getMany} with the heads already read (at {@linkcode headKey}, in the keys' order),
   * so a caller can read them with other keys in one call.
   */
  async fromHeads<T>(
    keys: readonly DocumentKey[],
    heads: readonly Deno.KvEntryMaybe<unknown>[],
  ): Promise<(Versioned<T> | null)[]> {
    return await guard("read documents", async () => {
      return await Promise.all(keys.map(async (key, i) => {
        this.noteHead(key, heads[i]);
        const head = heads[i].value as BlobHead | null;
        if (head === null) return null;
        const bytes = await readBlob(this.#kv, partPrefix(key), head);
        // Replaced while reading its parts: read it again on its own.
        if (bytes === null) return await this.get<T>(key);
        return { id: key.id, value: decodeJson<T>(bytes), version: head.gen };
      }));
    });
  }

  /** Every document of a collection within a scope, ordered by id (UTF-8 byte order). */
  async list<T>(collection: string, scope: string): Promise<Versioned<T>[]> {
    const prefix = ["doc", collection, scope];
    assertKeySize(prefix, "collection or scope");
    return await guard("list documents", async () => {
      const docs: Versioned<T>[] = [];
      for (const entry of await listAll<BlobHead>(this.#kv, { prefix })) {
        const id = entry.key[3] as string;
        const bytes = await readBlob(this.#kv, partPrefix({ collection, scope, id }), entry.value);
        if (bytes !== null) {
          docs.push({ id, value: decodeJson<T>(bytes), version: entry.value.gen });
          continue;
        }
        // Replaced while listing: read its current version instead.
        const current = await this.get<T>({ collection, scope, id });
        if (current !== null) docs.push(current);
      }
      return docs;
    });
  }

  /**
   * Creates a document at version 1; with a `fence`, only while that lease is held, checked in
   * the same atomic operation.
   *
   * @throws {ConflictError} `conflict` when it exists.
   * @throws {LeaseLostError} `conflict` when the fence is no longer held; nothing written.
   * @throws {SimulacraError} `payload_too_large` above ~600 KB of JSON.
   */
  async create<T>(key: DocumentKey, value: T, options: FencedWrite = {}): Promise<Versioned<T>> {
    assertKeySize(headKey(key), "document key");
    const bytes = encodeJson(value ?? null);
    const { head, writes } = blobWrites(partPrefix(key), bytes, {
      gen: 1,
      previous: null,
      what: "document",
    });
    return await guard("create a document", async () => {
      // Retried only when the fence's holder renewed it between our read and our commit.
      for (;;) {
        const fence = options.fence && await leaseCheck(this.#kv, options.fence);
        const op = this.#kv.atomic().check({ key: headKey(key), versionstamp: null });
        if (fence) op.check(fence);
        const result = await addWrites(op, writes).set(headKey(key), head).commit();
        if (result.ok) {
          this.noteHead(key, { value: head, versionstamp: result.versionstamp });
          return { id: key.id, value: decodeJson<T>(bytes), version: 1 };
        }
        if (!fence || (await this.#kv.get(headKey(key))).versionstamp !== null) {
          throw new ConflictError(
            `Cannot create the document in "${key.collection}": one with this id exists, replace it instead`,
          );
        }
      }
    });
  }

  /**
   * Replaces the document if its version is `options.expectedVersion` (atomic); null otherwise.
   * With a `fence`, only while that lease is held, checked in the same atomic operation.
   *
   * @throws {LeaseLostError} `conflict` when the fence is no longer held; nothing written.
   */
  async replace<T>(
    key: DocumentKey,
    value: T,
    options: ReplaceOptions,
  ): Promise<Versioned<T> | null> {
    const { expectedVersion } = options;
    assertKeySize(headKey(key), "document key");
    const bytes = encodeJson(value ?? null);
    return await guard("replace a document", async () => {
      // Retried only when the fence's holder renewed it between our read and our commit.
      for (;;) {
        const entry = await this.#kv.get<BlobHead>(headKey(key));
        if (entry.value === null || entry.value.gen !== expectedVersion) return null;
        const fence = options.fence && await leaseCheck(this.#kv, options.fence);
        const version = expectedVersion + 1;
        const { head, writes } = blobWrites(partPrefix(key), bytes, {
          gen: version,
          previous: entry.value,
          what: "document",
        });
        const op = this.#kv.atomic().check(entry);
        if (fence) op.check(fence);
        const result = await addWrites(op, writes).set(headKey(key), head).commit();
        if (result.ok) {
          this.noteHead(key, { value: head, versionstamp: result.versionstamp });
          return { id: key.id, value: decodeJson<T>(bytes), version };
        }
        if (!fence) return null;
      }
    });
  }

  /**
   * The head of a document as this store last read or wrote it (null when not known), for an
   * atomic operation to check: it fails if anyone wrote the head since.
   */
  knownHead(key: DocumentKey): Deno.KvEntryMaybe<BlobHead> | null {
    const known = this.#heads.get(knownKey(key));
    if (known === undefined) return null;
    if (known.head === null || known.versionstamp === null) {
      return { key: headKey(key), value: null, versionstamp: null };
    }
    return { key: headKey(key), value: known.head as BlobHead, versionstamp: known.versionstamp };
  }

  /** Remembers a head as read, or as an atomic operation (a unit of work's commit) wrote it. */
  noteHead(
    key: DocumentKey,
    entry: { value: unknown; versionstamp: string | null },
  ): void {
    if (this.#heads.size >= KNOWN_HEADS) this.#heads.clear();
    const stored = entry.value as BlobHead | null;
    const head = stored === null
      ? null
      : { gen: stored.gen, size: stored.size, parts: stored.parts };
    this.#heads.set(knownKey(key), { head, versionstamp: entry.versionstamp });
  }

  /** Deletes the document; returns whether it existed. */
  async delete(key: DocumentKey): Promise<boolean> {
    assertKeySize(headKey(key), "document key");
    return await guard("delete a document", async () => {
      for (;;) {
        const entry = await this.#kv.get<BlobHead>(headKey(key));
        if (entry.value === null) return false;
        const op = this.#kv.atomic().check(entry).delete(headKey(key));
        for (const part of blobPartKeys(partPrefix(key), entry.value)) op.delete(part);
        if ((await op.commit()).ok) {
          this.#heads.delete(knownKey(key));
          return true;
        }
      }
    });
  }

  /** Deletes every document of a collection in a scope, with their parts. */
  async deleteAll(collection: string, scope: string): Promise<number> {
    const prefix = ["doc", collection, scope];
    assertKeySize(prefix, "collection or scope");
    this.#heads.clear(); // rare (a world deleted): not worth finding its keys
    return await guard("delete documents", async () => {
      const [heads] = await deletePrefixes(this.#kv, [prefix, ["doc_part", collection, scope]]);
      return heads;
    });
  }
}
