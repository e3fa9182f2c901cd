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
  jsonDepthExceeds,
  jsonMayHoldUnsafeText,
  MAX_JSON_DEPTH,
  SimulacraError,
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
  if (jsonDepthExceeds(text)) {
    throw lineError(n, `it nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw lineError(n, "it is not valid JSON (a corrupt or cut file?)");
  }
  const unsafe = jsonMayHoldUnsafeText(text) ? findUnsafeText(json) : null;
  if (unsafe) {
    throw lineError(n, `"${unsafe.path}": the text ${unsafe.reason}`, { path: unsafe.path });
  }
  return json;
}

/** The memory line's embedding, or `invalid_request` naming the line when it is unusable. */
export function lineVector(
  embedding: string,
  { n, dimensions, kept }: { n: number; dimensions: number; kept: boolean },
): Float32Array {
  const vector = decodeVector(embedding, dimensions);
  if (vector === null) {
    throw lineError(
      n,
      `the embedding is not ${dimensions} float32 values as the header says`,
      { path: "embedding" },
    );
  }
  // One embedded again (?reembed=true) needs only to be well formed.
  const problem = kept ? embeddingProblem(vector, dimensions) : null;
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
