import assert from "node:assert/strict";
import { decodeVector, encodeVector } from "../../../../src/domain/archive/archive_format.ts";

Deno.test("encodeVector() is base64 of little-endian float32 and decodeVector() reverses it", () => {
  for (const length of [1, 2, 3, 384, 1536]) {
    const v = Float32Array.from(
      { length },
      (_, i) => Math.sin(i * 1.7) * (i % 7 === 0 ? -1e-30 : 3),
    );
    const encoded = encodeVector(v);
    const bytes = new Uint8Array(v.length * 4);
    const view = new DataView(bytes.buffer);
    v.forEach((x, i) => view.setFloat32(i * 4, x, true));
    assert.equal(encoded, btoa(String.fromCharCode(...bytes)), `length ${length}`);
    assert.deepEqual(decodeVector(encoded, length), v);
  }
  assert.equal(decodeVector(encodeVector(new Float32Array(4)), 5), null, "wrong size");
  assert.equal(decodeVector("@@@@", 1), null, "not base64");
});
