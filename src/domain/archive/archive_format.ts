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

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = new Uint8Array(128).fill(255);
for (let i = 0; i < ALPHABET.length; i++) CODES[ALPHABET.charCodeAt(i)] = i;
const SYMBOLS = new TextEncoder().encode(ALPHABET);
const PAD = "=".charCodeAt(0);
const ASCII = new TextDecoder();
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
 * A float32 vector as base64 of its little-endian bytes. Hand-rolled: an export encodes every
 * vector of a world, and this is several times faster than building a binary string for btoa.
 */
export function encodeVector(vector: Float32Array): string {
  const bytes = vectorBytes(vector);
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  for (let i = 0; i < bytes.length; i += 3) {
    const left = bytes.length - i;
    const n = (bytes[i] << 16) | (left > 1 ? bytes[i + 1] << 8 : 0) | (left > 2 ? bytes[i + 2] : 0);
    out[o++] = SYMBOLS[n >> 18];
    out[o++] = SYMBOLS[(n >> 12) & 63];
    out[o++] = left > 1 ? SYMBOLS[(n >> 6) & 63] : PAD;
    out[o++] = left > 2 ? SYMBOLS[n & 63] : PAD;
  }
  return ASCII.decode(out);
}

/** The vector {@linkcode encodeVector} encoded, or null when it is not `dimensions` floats. */
export function decodeVector(base64: string, dimensions: number): Float32Array | null {
  const size = dimensions * 4;
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  if (base64.length % 4 !== 0 || (base64.length / 4) * 3 - padding !== size) return null;
  const bytes = new Uint8Array(Math.ceil(size / 3) * 3);
  for (let i = 0, o = 0; i < base64.length; i += 4, o += 3) {
    const a = CODES[base64.charCodeAt(i)], b = CODES[base64.charCodeAt(i + 1)];
    const c = base64[i + 2] === "=" ? 0 : CODES[base64.charCodeAt(i + 2)];
    const d = base64[i + 3] === "=" ? 0 : CODES[base64.charCodeAt(i + 3)];
    if ((a | b | c | d) > 63) return null;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[o] = n >> 16;
    bytes[o + 1] = (n >> 8) & 255;
    bytes[o + 2] = n & 255;
  }
  if (LITTLE_ENDIAN) return new Float32Array(bytes.buffer, 0, dimensions).slice();
  const view = new DataView(bytes.buffer);
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
