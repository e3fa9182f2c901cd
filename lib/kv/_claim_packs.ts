/**
 * @module Private to lib/kv: packs, the embedded idempotency store's layout for keys written in
 * bulk (an import's event claims: one per memory).
 *
 * Deno KV's commits cost per key more than per byte (BENCHMARKS.md, issue 25, "World export and
 * import"), so `putMany` of {@linkcode PACK_MIN} or more small values writes packs:
 * `["idem_pk", scope, n]` → the JSON bytes of `{"keys": [...], "values": [...]}` (each value its
 * JSON text, as a string; ≤ 60 KB a pack), and `["idem_pkn", scope]` → `{ next }`, the marker,
 * rewritten with every pack so its versionstamp says whether the packs changed. A key's own head
 * (`["idem", scope, key]`) wins over any pack, and a newer pack (higher n) over an older one; a
 * read finds no head and then looks in the packs only when the marker exists (read with the head,
 * one `getMany`). A scope's packs are cached in process, checked against the marker's
 * versionstamp, so a lookup costs no more reads than before.
 */
import {
  deleteKey,
  type KvWrite,
  LIMITS,
  listAll,
  planBatches,
  setBytes,
  utf8Length,
} from "./_kv_support.ts";

/** Values a `putMany` must have to be written as packs. */
export const PACK_MIN = 64;

/** The largest value (JSON text) a pack takes. */
export const PACKED_MAX = 8_000;

/** Scopes whose packs stay cached per KV (an import's agents; perceives read one agent's). */
const CACHED_SCOPES = 16;

const encoder = new TextEncoder();

/** The marker of a scope's packs. */
export function markerKey(scope: string): Deno.KvKey {
  return ["idem_pkn", scope];
}

/** Where a scope's packs are. */
export function packPrefix(scope: string): Deno.KvKey {
  return ["idem_pk", scope];
}

/** A scope's packs as loaded: each pack's keys, and the current value text of every key. */
interface Loaded {
  stamp: string;
  packs: Map<number, string[]>;
  texts: Map<string, string>;
}

const caches = new WeakMap<Deno.Kv, Map<string, Loaded>>();

/** A scope's packs, as of `marker` (read from the cache while the marker is unchanged). */
async function loaded(
  kv: Deno.Kv,
  scope: string,
  marker: Deno.KvEntryMaybe<unknown>,
): Promise<Loaded | null> {
  if (marker.versionstamp === null) return null;
  let cache = caches.get(kv);
  if (cache === undefined) caches.set(kv, cache = new Map());
  const cached = cache.get(scope);
  if (cached !== undefined && cached.stamp === marker.versionstamp) {
    cache.delete(scope);
    cache.set(scope, cached); // most recently used last
    return cached;
  }
  const stored = await listAll<Uint8Array>(kv, { prefix: packPrefix(scope) });
  const out: Loaded = { stamp: marker.versionstamp, packs: new Map(), texts: new Map() };
  for (const { key, value } of stored) {
    const pack = JSON.parse(new TextDecoder().decode(value)) as {
      keys: string[];
      values: string[];
    };
    out.packs.set(key[2] as number, pack.keys);
    pack.keys.forEach((k, i) => out.texts.set(k, pack.values[i]));
  }
  cache.delete(scope);
  cache.set(scope, out);
  if (cache.size > CACHED_SCOPES) cache.delete(cache.keys().next().value!);
  return out;
}

/**
 * The JSON text a pack holds for `key`, or undefined; `marker` is the scope's marker entry, read
 * with the key's head (a head, when there is one, wins).
 */
export async function packedText(
  kv: Deno.Kv,
  { scope, key }: { scope: string; key: string },
  marker: Deno.KvEntryMaybe<unknown>,
): Promise<string | undefined> {
  return (await loaded(kv, scope, marker))?.texts.get(key);
}

/**
 * Commits `writes` one batch at a time, each checked against the marker and setting it (with
 * `next`), so a concurrent pack write or removal is never overwritten; a changed marker starts
 * over from `plan` (which reads what it needs again).
 */
async function commitMarked(
  kv: Deno.Kv,
  scope: string,
  plan: (marker: Deno.KvEntryMaybe<{ next: number }>) => Promise<KvWrite[][]>,
): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    let marker = await kv.get<{ next: number }>(markerKey(scope));
    const batches = await plan(marker);
    let next = marker.value?.next ?? 0;
    let ok = true;
    for (const batch of batches) {
      if (batch.length === 0) continue;
      const op = kv.atomic().check(marker);
      for (const w of batch) {
        if (w.op === "set") op.set(w.key, w.value);
        else op.delete(w.key);
        if (w.op === "set" && typeof w.key[2] === "number") next = Math.max(next, w.key[2] + 1);
      }
      const result = await op.set(markerKey(scope), { next }).commit();
      if (!result.ok) {
        ok = false;
        break;
      }
      marker = { key: marker.key, value: { next }, versionstamp: result.versionstamp };
    }
    if (ok) return;
  }
  throw new Error("The idempotency packs kept changing");
}

/** Writes `entries` (values as JSON text, each ≤ {@linkcode PACKED_MAX}) as new packs of `scope`. */
export async function writePacks(
  kv: Deno.Kv,
  scope: string,
  entries: readonly { key: string; text: string }[],
): Promise<void> {
  const packs: { keys: string[]; values: string[] }[] = [];
  let pack = { keys: [] as string[], values: [] as string[] }, bytes = 32;
  for (const { key, text } of entries) {
    const k = JSON.stringify(key), v = JSON.stringify(text);
    const more = utf8Length(k) + utf8Length(v) + 2;
    if (pack.keys.length > 0 && bytes + more > LIMITS.partBytes) {
      packs.push(pack);
      pack = { keys: [], values: [] }, bytes = 32;
    }
    pack.keys.push(k);
    pack.values.push(v);
    bytes += more;
  }
  if (pack.keys.length > 0) packs.push(pack);
  const encoded = packs.map((p) =>
    encoder.encode(`{"keys":[${p.keys.join(",")}],"values":[${p.values.join(",")}]}`)
  );
  await commitMarked(kv, scope, (marker) => {
    const first = marker.value?.next ?? 0;
    const writes = encoded.map((bytes, i) => setBytes([...packPrefix(scope), first + i], bytes));
    return Promise.resolve(planBatches(writes, { mutations: 2, bytes: 200 }));
  });
}

/** Takes `keys` out of the packs of `scope` that hold them (a pack left empty is deleted). */
export async function removeFromPacks(
  kv: Deno.Kv,
  scope: string,
  keys: readonly string[],
): Promise<void> {
  const gone = new Set(keys);
  await commitMarked(kv, scope, async (marker) => {
    const packs = await loaded(kv, scope, marker);
    if (packs === null) return [];
    const writes: KvWrite[] = [];
    for (const [n, held] of packs.packs) {
      if (!held.some((k) => gone.has(k))) continue;
      const kept = held.filter((k) => !gone.has(k));
      const key = [...packPrefix(scope), n];
      if (kept.length === 0) {
        writes.push(deleteKey(key));
        continue;
      }
      // Each kept key's current text: a newer pack's value of it is kept there too, and wins.
      const values = kept.map((k) => JSON.stringify(packs.texts.get(k)!));
      const text = `{"keys":[${kept.map((k) => JSON.stringify(k)).join(",")}],"values":[${
        values.join(",")
      }]}`;
      writes.push(setBytes(key, encoder.encode(text)));
    }
    return planBatches(writes, { mutations: 2, bytes: 200 });
  });
}
