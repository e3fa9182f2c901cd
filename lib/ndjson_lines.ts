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

/** Writes each line and a newline to `out`, then closes it; returns how many lines. */
export async function writeLines(
  lines: AsyncIterable<string>,
  out: WritableStream<Uint8Array>,
): Promise<number> {
  const encoder = new TextEncoder();
  const writer = out.getWriter();
  let count = 0;
  try {
    for await (const line of lines) {
      await writer.write(encoder.encode(`${line}\n`));
      count++;
    }
  } finally {
    await writer.close().catch(() => {});
  }
  return count;
}
