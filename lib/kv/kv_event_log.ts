/**
 * @module The embedded EventLog: each world's append-only events in Deno KV with gap-free seq numbers.
 *
 * `["ev", worldId, "seq"]` holds the last committed seq; `["ev", worldId, "e", seq]` each event's
 * JSON bytes. An append writes its events at `last + 1 …` and moves the counter in the same
 * atomic operation, checked against the counter's versionstamp (a check-and-set loop), so seqs
 * are gap-free and each batch is contiguous. A batch too large for one atomic operation writes
 * its events first and moves the counter last: readers never look past the counter, and every
 * seq below a new counter value was written by the append that set it. Appends per world are
 * also serialised in process, so staged events are never overwritten by a concurrent append.
 */
import { SimulacraError } from "../../src/domain/mod.ts";
import { AppendBell, type BellWaitOptions } from "../append_bell.ts";
import type { EventLog, LoggedEvent, NewEvent } from "../../src/ports/mod.ts";
import { KeyedMutex } from "./_keyed_mutex.ts";
import {
  addWrites,
  assertKeySize,
  decodeJson,
  deleteKey,
  deletePrefixes,
  encodeJson,
  guard,
  LIMITS,
  listAll,
  planBatches,
  setBytes,
} from "./_kv_support.ts";

/** Configuration of {@linkcode KvEventLog}. */
export interface KvEventLogOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
}

/** Check-and-set rounds before reporting the counter as unavailable. */
const ATTEMPTS = 20;

function counterKey(worldId: string): Deno.KvKey {
  return ["ev", worldId, "seq"];
}

function eventKey(worldId: string, seq: number): Deno.KvKey {
  return ["ev", worldId, "e", seq];
}

/** Append-only events per world in Deno KV. */
export class KvEventLog implements EventLog {
  readonly #kv: Deno.Kv;
  readonly #mutex = new KeyedMutex();
  readonly #bell = new AppendBell();

  constructor(options: KvEventLogOptions) {
    this.#kv = options.kv;
  }

  /**
   * Appends events in order, all or none, numbering them after the world's last seq.
   *
   * @throws {SimulacraError} `payload_too_large` when one event's JSON exceeds 60 KB.
   */
  async append(worldId: string, events: readonly NewEvent[]): Promise<LoggedEvent[]> {
    if (events.length === 0) return [];
    assertKeySize(eventKey(worldId, 0), "world id");
    return await this.#mutex.run(worldId, () =>
      guard("append events", async () => {
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const counter = await this.#kv.get<number>(counterKey(worldId));
          const last = counter.value ?? 0;
          const encoded = events.map((event, i) => {
            const bytes = encodeJson({ ...event, seq: last + i + 1 });
            if (bytes.length > LIMITS.partBytes) {
              throw new SimulacraError(
                "payload_too_large",
                `Cannot log an event of ${bytes.length} bytes: keep events under ${LIMITS.partBytes}`,
              );
            }
            return bytes;
          });
          const writes = encoded.map((bytes, i) =>
            setBytes(eventKey(worldId, last + i + 1), bytes)
          );
          const batches = planBatches(writes, { mutations: 1, bytes: 100 });
          let committed = true;
          for (let b = 0; b < batches.length && committed; b++) {
            const op = addWrites(this.#kv.atomic().check(counter), batches[b]);
            if (b === batches.length - 1) op.set(counterKey(worldId), last + events.length);
            committed = (await op.commit()).ok;
          }
          if (committed) {
            this.#bell.ring(worldId, last + events.length);
            return encoded.map((bytes) => decodeJson<LoggedEvent>(bytes));
          }
          // Another writer moved the counter first (only possible from another process).
        }
        throw new Error("The event counter kept changing");
      }));
  }

  /** Waits for an append by this process (see the port); no KV call. */
  waitForAppend(worldId: string, after: number, options: BellWaitOptions): Promise<void> {
    return this.#bell.wait(worldId, after, options);
  }

  /** Events with `seq > after`, oldest first, at most `limit`. */
  async read(worldId: string, after: number, limit: number): Promise<LoggedEvent[]> {
    const from = Math.max(0, Math.floor(after));
    const count = Math.floor(limit);
    if (!(count > 0)) return [];
    assertKeySize(eventKey(worldId, 0), "world id");
    return await guard("read events", async () => {
      const last = (await this.#kv.get<number>(counterKey(worldId))).value ?? 0;
      if (from >= last) return [];
      // Seqs have gaps where an agent's events were removed: take the next `count` entries.
      const entries: Deno.KvEntry<Uint8Array>[] = [];
      const selector = { start: eventKey(worldId, from + 1), end: eventKey(worldId, last + 1) };
      for await (
        const entry of this.#kv.list<Uint8Array>(selector, { limit: count, batchSize: 500 })
      ) entries.push(entry);
      return entries.map((entry) => decodeJson<LoggedEvent>(entry.value));
    });
  }

  /** The last committed seq (0 when nothing was logged). */
  async latest(worldId: string): Promise<number> {
    assertKeySize(eventKey(worldId, 0), "world id");
    return await guard(
      "read the latest event",
      async () => (await this.#kv.get<number>(counterKey(worldId))).value ?? 0,
    );
  }

  /**
   * Removes all of a world's events and its counter, or only the events of one agent (the
   * counter stays, so seqs are never reused).
   */
  async remove(worldId: string, options: { agentId?: string } = {}): Promise<number> {
    assertKeySize(eventKey(worldId, 0), "world id");
    return await this.#mutex.run(worldId, () =>
      guard("remove events", async () => {
        if (options.agentId === undefined) {
          const [events] = await deletePrefixes(this.#kv, [["ev", worldId]]);
          this.#bell.reset(worldId);
          return Math.max(0, events - 1); // the counter is under the prefix too
        }
        const entries = await listAll<Uint8Array>(this.#kv, { prefix: ["ev", worldId, "e"] });
        const doomed = entries.filter((e) =>
          decodeJson<LoggedEvent>(e.value).agentId === options.agentId
        );
        for (const batch of planBatches(doomed.map((e) => deleteKey(e.key)))) {
          if (batch.length > 0) await addWrites(this.#kv.atomic(), batch).commit();
        }
        return doomed.length;
      }));
  }
}
