import assert from "node:assert/strict";
import { ndjsonChunks, ndjsonLines, writeLines } from "../../lib/ndjson_lines.ts";

async function* linesOf(lines: string[]): AsyncGenerator<string> {
  for (const line of lines) yield line;
}

Deno.test("ndjsonChunks gathers many lines to a chunk, and the lines read back the same", async () => {
  const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i, text: "é".repeat(i) }));
  lines.push("x".repeat(600_000)); // longer than a chunk
  const chunks: Uint8Array[] = [];
  for await (const chunk of ndjsonChunks(linesOf(lines))) chunks.push(chunk);
  assert.ok(chunks.length >= 2 && chunks.length < 10, `${chunks.length} chunks`);
  const back: string[] = [];
  for await (const line of ndjsonLines(ReadableStream.from(chunks))) back.push(line);
  assert.deepEqual(back, lines);
});

Deno.test("writeLines writes every line with its newline and counts them", async () => {
  const written: Uint8Array[] = [];
  const out = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(chunk) });
  assert.equal(await writeLines(linesOf(["a", "b", "{}"]), out), 3);
  assert.equal(
    new TextDecoder().decode(written.reduce((a, b) => new Uint8Array([...a, ...b]))),
    "a\nb\n{}\n",
  );
  assert.equal(await writeLines(linesOf([]), new WritableStream()), 0);
});
