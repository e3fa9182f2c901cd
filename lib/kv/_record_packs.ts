/**
 * @module Private to lib/kv: how the embedded memory stream stores its records, one key each or
 * in packs (see `kv_memory_store.ts` for the layout).
 *
 * Deno KV's commits cost per key more than per byte (BENCHMARKS.md, issue 25, "World export and
 * import"): an import appended 20,000 records as 20,000 keys, ~0.4 s of its 1.5 s. So an append of
 * {@linkcode PACK_MIN} or more writes its records in packs, `[...P, "rpk", first]` → the JSON
 * bytes of `{"seqs": [...], "records": [...]}` (at most {@linkcode LIMITS.partBytes}; `first` is
 * the seq the pack was written with). A pack belongs to one append, so its `first` past the head
 * marks it uncommitted as a record key's seq does. A removal rewrites the packs holding what it
 * removes (or deletes them when nothing is left); their keys stay. Records larger than
 * {@linkcode PACKED_MAX} keep a key of their own (`[...P, "rec", seq, part]`), as do the records
 * of small appends and every record written before packs existed.
 */
import type { AgentScope, MemoryRecord } from "../../src/domain/mod.ts";
import {
  decodeJson,
  deleteKey,
  encodeJson,
  joinBytes,
  type KvWrite,
  LIMITS,
  listAll,
  setBytes,
  splitBytes,
  utf8Length,
} from "./_kv_support.ts";
import { jsonCopy } from "./_json_copy.ts";
import { type EntryInit, freezeRecord, prefixOf } from "./_memory_state.ts";

/** Records an append must have to be written as packs. */
export const PACK_MIN = 32;

/** The largest record (bytes of JSON) a pack takes; larger ones keep keys of their own. */
const PACKED_MAX = 16_000;

/** Bytes a pack spends besides its records' JSON: the wrapper, and per record its seq and comma. */
const PACK_OVERHEAD = { fixed: 32, perRecord: 18 };

const encoder = new TextEncoder();

/** A pack as stored. */
interface StoredPack {
  seqs: number[];
  records: MemoryRecord[];
}

/** The key of the pack first written with record `first`. */
function packKey(scope: AgentScope, first: number): Deno.KvKey {
  return [...prefixOf(scope), "rpk", first];
}

/**
 * The writes that store `memories` as the records after `seq`, and their cache entries: the
 * cache holds what a reload would read, the JSON form, frozen.
 */
export function recordWrites(
  scope: AgentScope,
  memories: readonly MemoryRecord[],
  seq: number,
): { writes: KvWrite[]; entries: EntryInit[] } {
  const writes: KvWrite[] = [];
  const entries: EntryInit[] = [];
  const packed = memories.length >= PACK_MIN;
  let pack: { seqs: number[]; texts: string[]; bytes: number } | null = null;
  const close = () => {
    if (pack === null) return;
    const text = `{"seqs":[${pack.seqs.join(",")}],"records":[${pack.texts.join(",")}]}`;
    writes.push(setBytes(packKey(scope, pack.seqs[0]), encoder.encode(text)));
    pack = null;
  };
  memories.forEach((memory, i) => {
    const text = JSON.stringify(memory);
    const size = utf8Length(text);
    // What a reload reads: a copy of the record when it is its own JSON, else its JSON parsed.
    const base = freezeRecord((jsonCopy(memory) ?? JSON.parse(text)) as MemoryRecord);
    if (!packed || size > PACKED_MAX) {
      const bytes = encoder.encode(text);
      splitBytes(bytes).forEach((part, p) => {
        writes.push(setBytes([...prefixOf(scope), "rec", seq + i + 1, p], part));
      });
      entries.push({ seq: seq + i + 1, base, overlay: null });
      return;
    }
    const more = size + PACK_OVERHEAD.perRecord;
    if (pack !== null && pack.bytes + more > LIMITS.partBytes) close();
    pack ??= { seqs: [], texts: [], bytes: PACK_OVERHEAD.fixed };
    pack.seqs.push(seq + i + 1);
    pack.texts.push(text);
    pack.bytes += more;
    entries.push({ seq: seq + i + 1, base, overlay: null, pack: pack.seqs[0] });
  });
  close();
  return { writes, entries };
}

/**
 * The committed records of an agent (`seq` up to `headSeq`), in seq order, without overlays;
 * and the deletes of the record keys and packs an uncommitted write left.
 */
export async function loadRecords(
  kv: Deno.Kv,
  { prefix, headSeq }: { prefix: Deno.KvKey; headSeq: number },
): Promise<{ entries: EntryInit[]; cleanup: KvWrite[] }> {
  const [records, packs] = await Promise.all([
    listAll<Uint8Array>(kv, { prefix: [...prefix, "rec"] }),
    listAll<Uint8Array>(kv, { prefix: [...prefix, "rpk"] }),
  ]);
  const cleanup: KvWrite[] = [];
  const entries: EntryInit[] = [];
  for (const { key, value } of packs) {
    const first = key[prefix.length + 1] as number;
    if (first > headSeq) {
      cleanup.push(deleteKey(key));
      continue;
    }
    const stored = decodeJson<StoredPack>(value);
    stored.records.forEach((record, i) => {
      entries.push({ seq: stored.seqs[i], base: freezeRecord(record), overlay: null, pack: first });
    });
  }
  let parts: Uint8Array[] = [];
  for (let i = 0; i < records.length; i++) {
    const { key, value } = records[i];
    const seq = key[prefix.length + 1] as number;
    if (seq > headSeq) {
      cleanup.push(deleteKey(key));
      continue;
    }
    parts.push(value);
    if (i + 1 < records.length && records[i + 1].key[prefix.length + 1] === seq) continue;
    const base = freezeRecord(decodeJson<MemoryRecord>(joinBytes(parts)));
    parts = [];
    entries.push({ seq, base, overlay: null });
  }
  // Each family is in seq order; merged, they are sorted again (only when both are there).
  const sorted = packs.length === 0 || records.length === 0;
  return { entries: sorted ? entries : entries.sort((a, b) => a.seq - b.seq), cleanup };
}

/**
 * The writes that delete the records of `doomed` (entries as the cache has them): their record
 * keys, and the packs holding any, rewritten without them (deleted when nothing is left).
 */
export async function recordRemovals(
  kv: Deno.Kv,
  scope: AgentScope,
  doomed: readonly { seq: number; pack?: number }[],
): Promise<KvWrite[]> {
  const prefix = prefixOf(scope);
  const writes: KvWrite[] = [];
  const byPack = new Map<number, Set<number>>();
  for (const { seq, pack } of doomed) {
    if (pack === undefined) {
      const parts = await listAll(kv, { prefix: [...prefix, "rec", seq] });
      for (const part of parts) writes.push(deleteKey(part.key));
    } else {
      const seqs = byPack.get(pack) ?? new Set<number>();
      byPack.set(pack, seqs.add(seq));
    }
  }
  for (const [first, gone] of byPack) {
    const key = packKey(scope, first);
    const entry = await kv.get<Uint8Array>(key);
    if (entry.value === null) continue;
    const stored = decodeJson<StoredPack>(entry.value);
    const kept: StoredPack = { seqs: [], records: [] };
    stored.seqs.forEach((seq, i) => {
      if (gone.has(seq)) return;
      kept.seqs.push(seq);
      kept.records.push(stored.records[i]);
    });
    writes.push(kept.seqs.length === 0 ? deleteKey(key) : setBytes(key, encodeJson(kept)));
  }
  return writes;
}
