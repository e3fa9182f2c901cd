/** @module Private to app/archive: an import's lines checked one by one, and the errors that name them. */
import { z } from "zod";
import type { Deps } from "../../ports/mod.ts";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  type ArchiveCounts,
  decodeVector,
  embeddingProblem,
  findUnsafeText,
  type HeaderLine,
  HeaderLine as HeaderSchema,
  isUsableEmbedding,
  jsonDepthExceeds,
  jsonMayHoldUnsafeText,
  MAX_JSON_DEPTH,
  SimulacraError,
  type VectorArena,
} from "../../domain/mod.ts";

/** Memories written per batch. */
export const BATCH = 500;

/** The archive's first line, checked: format, version, and an embedder this store can use. */
export function checkHeader(
  deps: Pick<Deps, "embedder">,
  json: unknown,
  options: { reembed?: boolean },
): HeaderLine {
  const n = 1;
  const looks = z.object({ type: z.literal("header"), format: z.literal(ARCHIVE_FORMAT) })
    .safeParse(json);
  if (!looks.success) {
    throw lineError(
      n,
      `it is not a ${ARCHIVE_FORMAT} header: export the world with GET /v1/worlds/{world}/export`,
    );
  }
  const version = (json as { version?: unknown }).version;
  if (version !== ARCHIVE_VERSION) {
    throw lineError(
      n,
      `the archive has format version ${
        JSON.stringify(version)
      }, this build reads version ${ARCHIVE_VERSION}`,
    );
  }
  const parsed = HeaderSchema.safeParse(json);
  if (!parsed.success) throw lineError(n, describe(parsed.error));
  const header = parsed.data;
  if (mismatched(deps, header) && !options.reembed) {
    const { model, dimensions } = header.embedder;
    const ours = deps.embedder.info;
    throw new SimulacraError(
      "unprocessable",
      `Cannot import memories embedded with "${model}" (${dimensions} dimensions) into a store that uses "${ours.model}" (${ours.dimensions}): import with ?reembed=true to embed them again (one embedding call per ${BATCH} memories)`,
      {
        details: {
          archive: header.embedder,
          store: { model: ours.model, dimensions: ours.dimensions },
        },
      },
    );
  }
  return header;
}

export function mismatched(deps: Pick<Deps, "embedder">, header: HeaderLine): boolean {
  const ours = deps.embedder.info;
  return header.embedder.model !== ours.model || header.embedder.dimensions !== ours.dimensions;
}

/**
 * A line's JSON, checked as the JSON API checks a request body (nesting depth, then control
 * characters and lone surrogates in every string and key), so an import stores no text the API
 * would refuse.
 */
export function parseLine(text: string, n: number): unknown {
  return parseBodyText(text, { n }).json;
}

/**
 * {@linkcode parseLine}, and with `dimensions` a memory line's embedding decoded (into `arena`)
 * when it is that many float32 values (else null: {@linkcode lineVector} words the error after
 * the schema's).
 */
export function parseBodyText(
  text: string,
  { n, dimensions, arena }: { n: number; dimensions?: number; arena?: VectorArena },
): { json: unknown; vector: Float32Array | null } {
  if (jsonDepthExceeds(text)) {
    throw lineError(n, `it nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw lineError(n, "it is not valid JSON (a corrupt or cut file?)");
  }
  const embedding = dimensions === undefined ? undefined : embeddingOf(json);
  const vector = embedding === undefined ? null : decodeVector(embedding, dimensions!, { arena });
  const unsafe = mayHoldUnsafeText(text, vector === null ? null : embedding!)
    ? findUnsafeText(json)
    : null;
  if (unsafe) {
    throw lineError(n, `"${unsafe.path}": the text ${unsafe.reason}`, { path: unsafe.path });
  }
  return { json, vector };
}

function embeddingOf(json: unknown): string | undefined {
  if (json === null || typeof json !== "object") return undefined;
  const { type, embedding } = json as { type?: unknown; embedding?: unknown };
  return type === "memory" && typeof embedding === "string" ? embedding : undefined;
}

const EMBEDDING_KEY = '"embedding":"';

/**
 * {@linkcode jsonMayHoldUnsafeText} of `text`, leaving out the line's last value when it is
 * `"embedding":"<base64>"` and `base64` decoded (so holds only base64's alphabet: nothing unsafe,
 * no escape; the quote before it keeps an escape from spanning the cut). It is most of a memory
 * line, and the search of it cost an import more than the line's `JSON.parse` (BENCHMARKS.md,
 * issue 25, 2d); the comparisons are native copies.
 */
function mayHoldUnsafeText(text: string, base64: string | null): boolean {
  if (base64 !== null) {
    const end = text.length - 2; // an export's memory line ends `…"embedding":"<base64>"}`
    const start = end - base64.length;
    if (
      start >= EMBEDDING_KEY.length && text.charCodeAt(end) === 34 &&
      text.charCodeAt(end + 1) === 125 &&
      text.slice(start - EMBEDDING_KEY.length, start) === EMBEDDING_KEY &&
      text.slice(start, end) === base64
    ) {
      return jsonMayHoldUnsafeText(text.slice(0, start));
    }
  }
  return jsonMayHoldUnsafeText(text);
}

/**
 * The memory line's embedding (`decoded` when {@linkcode parseBodyText} decoded it already), or
 * `invalid_request` naming the line when it is unusable.
 */
export function lineVector(
  embedding: string,
  { n, dimensions, kept, decoded = null }: {
    n: number;
    dimensions: number;
    kept: boolean;
    decoded?: Float32Array | null;
  },
): Float32Array {
  const vector = decoded ?? decodeVector(embedding, dimensions);
  if (vector === null) {
    throw lineError(
      n,
      `the embedding is not ${dimensions} float32 values as the header says`,
      { path: "embedding" },
    );
  }
  // One embedded again (?reembed=true) needs only to be well formed.
  const problem = kept && !isUsableEmbedding(vector, dimensions)
    ? embeddingProblem(vector, dimensions)
    : null;
  if (problem !== null) throw lineError(n, `the embedding ${problem}`, { path: "embedding" });
  return vector;
}

/**
 * Refuses, naming the header (line 1), a file that holds more records of a kind than its header
 * counts, or (`final`, once the file is read) another number.
 */
export function checkCounts(
  header: ArchiveCounts,
  file: ArchiveCounts,
  { final }: { final: boolean },
): void {
  for (const key of Object.keys(header) as (keyof ArchiveCounts)[]) {
    if (file[key] > header[key] || (final && file[key] !== header[key])) {
      throw lineError(
        1,
        `the header counts ${header[key]} ${key} but the file holds ${final ? file[key] : "more"}`,
        { field: `counts.${key}`, header: header[key], ...(final ? { file: file[key] } : {}) },
      );
    }
  }
}

export function lineError(
  line: number,
  reason: string,
  details: Record<string, unknown> = {},
): SimulacraError {
  return new SimulacraError("invalid_request", `Cannot import line ${line}: ${reason}`, {
    details: { line, ...details },
  });
}

export function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue.path.length > 0 ? `"${issue.path.join(".")}": ` : "";
  return `${path}${issue.message}`;
}

/**
 * A copy of `value` with every `worldId` field that names `from` naming `to` instead: how a
 * fork's records point at the new world.
 */
export function renameWorld<T>(value: T, from: string, to: string): T {
  if (from === to || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => renameWorld(v, from, to)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === "worldId" && v === from ? to : renameWorld(v, from, to);
  }
  return out as T;
}
