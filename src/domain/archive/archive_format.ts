/**
 * @module The world archive format: newline-delimited JSON, one line per record, read and
 * written one line at a time so that neither side holds a large world in memory.
 *
 * Lines, in order: a `header` (format, version, product, embedder, counts), the `world`, every
 * `document` the world owns (agents first, then personas, plans, summaries, environment…), each
 * agent's `memory` lines with their embeddings, the `usage` totals, the `event`s (when asked
 * for), and an `end` line with the counts actually written, which is how a truncated file is
 * told from a whole one.
 */
import { z } from "zod";
import { AgentId, WorldId } from "../ids.ts";
import { MemoryRecord } from "../memory/mod.ts";
import { World } from "../world/mod.ts";

/** The format's name, in every header. */
export const ARCHIVE_FORMAT = "simulacra.world";
/** The format version this build writes and reads. */
export const ARCHIVE_VERSION = 1;

/** How many records of each kind a file holds. */
export const ArchiveCounts = z.strictObject({
  agents: z.number().int().min(0),
  documents: z.number().int().min(0),
  memories: z.number().int().min(0),
  events: z.number().int().min(0),
});
export type ArchiveCounts = z.infer<typeof ArchiveCounts>;

/** The first line. */
export const HeaderLine = z.strictObject({
  type: z.literal("header"),
  format: z.literal(ARCHIVE_FORMAT),
  version: z.number().int(),
  product: z.string(),
  worldId: WorldId,
  embedder: z.strictObject({ model: z.string(), dimensions: z.number().int().min(1) }),
  counts: ArchiveCounts,
});
export type HeaderLine = z.infer<typeof HeaderLine>;

/** The world: clock, settings. */
export const WorldLine = z.strictObject({ type: z.literal("world"), world: World });

/** A document the world owns, in its collection; `agentId` for documents scoped to one agent. */
export const DocumentLine = z.strictObject({
  type: z.literal("document"),
  collection: z.string().min(1).max(100),
  agentId: AgentId.optional(),
  id: z.string().min(1).max(300),
  value: z.json(),
});
export type DocumentLine = z.infer<typeof DocumentLine>;

/** One memory with its embedding as base64 little-endian float32. */
export const MemoryLine = z.strictObject({
  type: z.literal("memory"),
  memory: MemoryRecord,
  embedding: z.string().max(1_000_000).meta({ description: "base64 little-endian float32" }),
});
export type MemoryLine = z.infer<typeof MemoryLine>;

const Counts = z.strictObject({
  calls: z.number().int().min(0),
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  // Archives written before cached tokens were counted have none.
  cachedPromptTokens: z.number().int().min(0).default(0),
});

/** The usage ledger's totals. */
export const UsageLine = z.strictObject({
  type: z.literal("usage"),
  total: Counts,
  byAgent: z.record(z.string(), Counts),
  byOperation: z.record(z.string(), Counts),
});
export type UsageLine = z.infer<typeof UsageLine>;

/** One event of the world's log. */
export const EventLine = z.strictObject({
  type: z.literal("event"),
  event: z.looseObject({
    seq: z.number().int().min(1),
    type: z.string().min(1),
    at: z.string(),
  }),
});
export type EventLine = z.infer<typeof EventLine>;

/** The last line. */
export const EndLine = z.strictObject({ type: z.literal("end"), counts: ArchiveCounts });

/** Any line after the header. */
export const BodyLine = z.discriminatedUnion("type", [
  WorldLine,
  DocumentLine,
  MemoryLine,
  UsageLine,
  EventLine,
  EndLine,
]);
export type BodyLine = z.infer<typeof BodyLine>;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The little-endian bytes of a float32 vector (a view when the machine is little-endian). */
function vectorBytes(vector: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return bytes;
}

/**
 * A float32 vector as base64 of its little-endian bytes. The engine's own base64 (an export
 * encodes every vector of a world: ~0.5 µs a vector of 384, a JavaScript loop took ~6 µs).
 */
export function encodeVector(vector: Float32Array): string {
  return vectorBytes(vector).toBase64();
}

/**
 * Buffers decoded vectors share, many to one: an allocation of each vector's bytes (what
 * `Uint8Array.fromBase64` makes) cost an import more than decoding them (BENCHMARKS.md,
 * issue 25, 2d). A vector keeps its whole buffer alive, so an arena is for vectors dropped
 * together (an import's batch).
 */
export class VectorArena {
  #buffer = new Uint8Array(0);
  #at = 0;
  readonly #perBuffer: number;

  constructor({ perBuffer = 512 }: { perBuffer?: number } = {}) {
    this.#perBuffer = perBuffer;
  }

  /** Bytes for the next vector of `size` bytes, returned by {@linkcode give} when unused. */
  take(size: number): Uint8Array {
    if (this.#at + size > this.#buffer.length) {
      this.#buffer = new Uint8Array(size * this.#perBuffer);
      this.#at = 0;
    }
    this.#at += size;
    return this.#buffer.subarray(this.#at - size, this.#at);
  }

  /** Gives back the bytes {@linkcode take} just handed out, for the next vector. */
  give(bytes: Uint8Array): void {
    if (bytes.buffer === this.#buffer.buffer && bytes.byteOffset + bytes.length === this.#at) {
      this.#at = bytes.byteOffset;
    }
  }
}

/**
 * The vector {@linkcode encodeVector} encoded, or null when it is not `dimensions` floats:
 * padded standard base64 only (no whitespace, no URL alphabet, no stray bits in the last chunk).
 * Its bytes are `arena`'s when given, else its own.
 */
export function decodeVector(
  base64: string,
  dimensions: number,
  { arena }: { arena?: VectorArena } = {},
): Float32Array | null {
  const size = dimensions * 4;
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  if (base64.length % 4 !== 0 || (base64.length / 4) * 3 - padding !== size) return null;
  const bytes = arena?.take(size) ?? new Uint8Array(size);
  let done: { read: number; written: number } | null;
  try {
    done = bytes.setFromBase64(base64, { lastChunkHandling: "strict" });
  } catch {
    done = null;
  }
  // Whitespace decodes to nothing: a string of the right length with some holds fewer bytes.
  if (done === null || done.read !== base64.length || done.written !== size) {
    arena?.give(bytes);
    return null;
  }
  if (LITTLE_ENDIAN) return new Float32Array(bytes.buffer, bytes.byteOffset, dimensions);
  const view = new DataView(bytes.buffer, bytes.byteOffset, size);
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
