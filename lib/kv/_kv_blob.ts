/**
 * @module JSON values of any size up to ~600 KB behind one small head key, written in one atomic operation.
 *
 * A value of up to {@linkcode LIMITS.partBytes} is stored inline in its head. A larger one is
 * split into parts under `[...partPrefix, gen, i]`, written in the same atomic operation as the
 * head that names `gen` and the part count; the previous generation's parts are deleted in that
 * operation too. Parts are keyed by generation, so a reader that read an older head either finds
 * that generation's parts complete or misses one and reads again.
 */
import { SimulacraError } from "../../src/domain/mod.ts";
import { deleteKey, type KvWrite, LIMITS, setBytes, splitBytes } from "./_kv_support.ts";

/** The stored head of a blob. `gen` grows with every write (documents use it as the version). */
export interface BlobHead {
  gen: number;
  size: number;
  /** The bytes, when they fit inline. */
  data?: Uint8Array;
  /** How many parts, when they do not. */
  parts?: number;
}

/** The largest value one atomic operation can carry with a margin for keys. */
export const MAX_BLOB_BYTES = 600_000;

/** Which generation a blob write makes, what it replaces, and what to call the value in errors. */
export interface BlobWriteOptions {
  gen: number;
  previous: BlobHead | null;
  what: string;
}

/**
 * The head and the writes (new parts, deletes of the previous generation's parts) that store
 * `bytes` as generation `gen`. The caller sets the head in the same atomic operation.
 *
 * @throws {SimulacraError} `payload_too_large` above {@linkcode MAX_BLOB_BYTES}.
 */
export function blobWrites(
  partPrefix: Deno.KvKey,
  bytes: Uint8Array,
  { gen, previous, what }: BlobWriteOptions,
): { head: BlobHead; writes: KvWrite[] } {
  if (bytes.length > MAX_BLOB_BYTES) {
    throw new SimulacraError(
      "payload_too_large",
      `Cannot store a ${what} of ${bytes.length} bytes: the embedded store keeps at most ${MAX_BLOB_BYTES}`,
    );
  }
  const writes: KvWrite[] = [];
  for (const key of blobPartKeys(partPrefix, previous)) writes.push(deleteKey(key));
  if (bytes.length <= LIMITS.partBytes) {
    return { head: { gen, size: bytes.length, data: bytes }, writes };
  }
  const parts = splitBytes(bytes);
  parts.forEach((part, i) => writes.push(setBytes([...partPrefix, gen, i], part)));
  return { head: { gen, size: bytes.length, parts: parts.length }, writes };
}

/** The part keys of a stored head (none for an inline value). */
export function blobPartKeys(partPrefix: Deno.KvKey, head: BlobHead | null): Deno.KvKey[] {
  if (head?.parts === undefined) return [];
  return Array.from({ length: head.parts }, (_, i) => [...partPrefix, head.gen, i]);
}

/**
 * The bytes of a head, or null when its parts are gone (a concurrent write replaced them: read
 * the head again).
 */
export async function readBlob(
  kv: Deno.Kv,
  partPrefix: Deno.KvKey,
  head: BlobHead,
): Promise<Uint8Array | null> {
  if (head.data !== undefined) return head.data;
  const out = new Uint8Array(head.size);
  let offset = 0, count = 0;
  for await (const entry of kv.list<Uint8Array>({ prefix: [...partPrefix, head.gen] })) {
    if (offset + entry.value.length > out.length) return null;
    out.set(entry.value, offset);
    offset += entry.value.length;
    count++;
  }
  return count === head.parts && offset === head.size ? out : null;
}
