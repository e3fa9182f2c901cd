/** @module Newline-delimited JSON as a stream of lines: read one line at a time, or write them. */
import { SimulacraError } from "../src/domain/mod.ts";

/** Options of {@linkcode ndjsonLines}. */
export interface NdjsonLinesOptions {
  /**
   * The longest line accepted, in characters; a longer one is refused (a file that is not
   * NDJSON would otherwise be read whole). @default 4 MiB
   */
  maxLineChars?: number;
}

/**
 * The lines of `stream` (UTF-8), without their `\n` (or `\r\n`); a last line without a newline
 * is yielded too. Memory holds one line at a time.
 *
 * @throws {SimulacraError} `invalid_request` naming the line that is too long.
 */
export async function* ndjsonLines(
  stream: ReadableStream<Uint8Array>,
  options: NdjsonLinesOptions = {},
): AsyncGenerator<string> {
  const max = options.maxLineChars ?? 4 * 1024 * 1024;
  let buffered = "";
  let line = 0;
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let start = 0;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n", start)) {
      line++;
      yield stripCr(buffered.slice(start, nl));
      start = nl + 1;
    }
    buffered = buffered.slice(start);
    if (buffered.length > max) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot import line ${
          line + 1
        }: it is longer than ${max} characters (is this an NDJSON export?)`,
        { details: { line: line + 1 } },
      );
    }
  }
  if (buffered.length > 0) yield stripCr(buffered);
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Characters of lines {@linkcode ndjsonChunks} gathers before yielding them. */
const CHUNK_CHARS = 256 * 1024;

/**
 * The lines, each followed by a newline, as UTF-8 chunks of at least 256 K characters (the last
 * one fewer): one write or stream chunk per line cost an export more than
 * making the lines.
 */
export async function* ndjsonChunks(lines: AsyncIterable<string>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let gathered: string[] = [];
  let chars = 0;
  for await (const line of lines) {
    gathered.push(line);
    chars += line.length + 1;
    if (chars >= CHUNK_CHARS) {
      yield encoder.encode(gathered.join("\n") + "\n");
      gathered = [];
      chars = 0;
    }
  }
  if (gathered.length > 0) yield encoder.encode(gathered.join("\n") + "\n");
}

/** Writes each line and a newline to `out`, then closes it; returns how many lines. */
export async function writeLines(
  lines: AsyncIterable<string>,
  out: WritableStream<Uint8Array>,
): Promise<number> {
  const writer = out.getWriter();
  let count = 0;
  const counted = (async function* () {
    for await (const line of lines) {
      count++;
      yield line;
    }
  })();
  try {
    for await (const chunk of ndjsonChunks(counted)) await writer.write(chunk);
  } finally {
    await writer.close().catch(() => {});
  }
  return count;
}
