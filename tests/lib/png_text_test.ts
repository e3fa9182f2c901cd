import assert from "node:assert/strict";
import { SimulacraError } from "../../src/domain/errors.ts";
import { blankPng, crc32, readPngChunks, readPngText, writePngText } from "../../lib/png_text.ts";

function problemOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof SimulacraError);
    assert.equal(err.code, "invalid_request");
    return (err.details as { problem: string }).problem;
  }
  throw new Error("expected a failure");
}

Deno.test("crc32() matches the standard check value", () => {
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
});

Deno.test("blankPng() is a valid 1×1 PNG whose pixel data inflates", async () => {
  const png = blankPng();
  const chunks = readPngChunks(png);
  assert.deepEqual(chunks.map((c) => c.type), ["IHDR", "IDAT", "IEND"]);
  const idat = chunks[1].data.slice();
  const inflated = new Uint8Array(
    await new Response(new Blob([idat]).stream().pipeThrough(new DecompressionStream("deflate")))
      .arrayBuffer(),
  );
  assert.deepEqual([...inflated], [0, 0x80]);
});

Deno.test("writePngText() and readPngText() round-trip, replacing a keyword", () => {
  const once = writePngText(blankPng(), { chara: "djI=", other: "x" });
  const twice = writePngText(once, { chara: "djM=" });
  const text = readPngText(twice);
  assert.equal(text.get("chara"), "djM=");
  assert.equal(text.get("other"), "x");
  assert.equal(readPngChunks(twice).filter((c) => c.type === "tEXt").length, 2);
  assert.equal(readPngChunks(twice).at(-1)!.type, "IEND");
  assert.throws(() => writePngText(blankPng(), { chara: "日本" }), RangeError);
});

Deno.test("readPngText() reads uncompressed iTXt as UTF-8", () => {
  const png = blankPng();
  const data = new Uint8Array([
    ...new TextEncoder().encode("ccv3"),
    0,
    0,
    0,
    0,
    0,
    ...new TextEncoder().encode("héllo"),
  ]);
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(new TextEncoder().encode("iTXt"), 4);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  const iend = png.length - 12;
  const out = new Uint8Array([...png.subarray(0, iend), ...chunk, ...png.subarray(iend)]);
  assert.equal(readPngText(out).get("ccv3"), "héllo");
});

Deno.test("readPngChunks() names what is broken", async (t) => {
  const png = writePngText(blankPng(), { chara: "abc" });
  await t.step("not a PNG", () => {
    assert.equal(problemOf(() => readPngChunks(new TextEncoder().encode("{}"))), "not_png");
  });
  await t.step("cut off", () => {
    assert.equal(problemOf(() => readPngChunks(png.subarray(0, png.length - 20))), "truncated");
  });
  await t.step("a flipped byte fails the CRC", () => {
    const bad = png.slice();
    bad[png.length - 17] ^= 0xff; // the last byte of the tEXt data
    assert.equal(problemOf(() => readPngChunks(bad)), "bad_crc");
  });
  await t.step("no IEND", () => {
    assert.equal(problemOf(() => readPngChunks(png.subarray(0, png.length - 12))), "no_iend");
  });
});
