/**
 * @module Reads and writes PNG text chunks (`tEXt`, uncompressed `iTXt`), pure byte work, for
 * Character Card PNGs.
 * @see https://www.w3.org/TR/png-3/#11tEXt
 */
import { SimulacraError } from "../src/domain/mod.ts";
import { concatBytes } from "./bytes.ts";

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

/** A PNG that cannot be read, with the problem named. */
function broken(problem: string, message: string): SimulacraError {
  return new SimulacraError("invalid_request", `Cannot read the PNG card: ${message}`, {
    details: { problem },
  });
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, as PNG uses) of a byte range. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One chunk: its four-letter type and data. */
export interface PngChunk {
  type: string;
  data: Uint8Array;
}

/**
 * Splits a PNG into chunks, checking the signature, every length and CRC, that IHDR comes
 * first and that IEND ends it.
 * @throws `invalid_request` with `details.problem` naming what is wrong.
 */
export function readPngChunks(png: Uint8Array): PngChunk[] {
  if (png.length < 8 || SIGNATURE.some((b, i) => png[i] !== b)) {
    throw broken("not_png", "the body does not start with the PNG signature: send a PNG file");
  }
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at < png.length) {
    if (at + 12 > png.length) {
      throw broken("truncated", `the chunk at byte ${at} is cut off: the file is incomplete`);
    }
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    if (!/^[A-Za-z]{4}$/.test(type)) {
      throw broken("bad_chunk", `the chunk at byte ${at} has no valid type: the file is corrupt`);
    }
    if (at + 12 + length > png.length) {
      throw broken("truncated", `chunk "${type}" at byte ${at} runs past the end of the file`);
    }
    const data = png.subarray(at + 8, at + 8 + length);
    const expected = view.getUint32(at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== expected) {
      throw broken(
        "bad_crc",
        `chunk "${type}" at byte ${at} fails its CRC check: the file is corrupt`,
      );
    }
    chunks.push({ type, data });
    at += 12 + length;
    if (type === "IEND") break;
  }
  if (chunks[0]?.type !== "IHDR") throw broken("no_ihdr", "the first chunk is not IHDR");
  if (chunks.at(-1)?.type !== "IEND") {
    throw broken("no_iend", "the file has no IEND chunk: it is incomplete");
  }
  return chunks;
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return s;
}

/**
 * The text chunks of a PNG by keyword: `tEXt` (Latin-1) and uncompressed `iTXt` (UTF-8).
 * Compressed text (`zTXt`, compressed `iTXt`) is skipped: cards do not use it.
 * @throws `invalid_request` when the PNG is broken.
 */
export function readPngText(png: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  for (const chunk of readPngChunks(png)) {
    const nul = chunk.data.indexOf(0);
    if (nul <= 0) continue;
    const keyword = latin1(chunk.data.subarray(0, nul));
    if (chunk.type === "tEXt") {
      out.set(keyword, latin1(chunk.data.subarray(nul + 1)));
    } else if (chunk.type === "iTXt" && chunk.data[nul + 1] === 0) {
      // keyword, compression flag, method, language tag\0, translated keyword\0, text
      const langEnd = chunk.data.indexOf(0, nul + 3);
      const transEnd = langEnd < 0 ? -1 : chunk.data.indexOf(0, langEnd + 1);
      if (transEnd < 0) continue;
      out.set(keyword, new TextDecoder().decode(chunk.data.subarray(transEnd + 1)));
    }
  }
  return out;
}

function chunkBytes(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A whole PNG: the signature, the encoded chunks, then IEND. */
function pngFile(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  return concatBytes([new Uint8Array(SIGNATURE), ...chunks, chunkBytes("IEND", new Uint8Array())]);
}

/**
 * A copy of a PNG with `tEXt` chunks for `entries` inserted before IEND; earlier text chunks
 * with the same keywords are removed. Values must be Latin-1 (cards store base64).
 * @throws `invalid_request` when the PNG is broken; {RangeError} for a non-Latin-1 value.
 */
export function writePngText(
  png: Uint8Array,
  entries: Record<string, string>,
): Uint8Array<ArrayBuffer> {
  const keys = new Set(Object.keys(entries));
  const kept = readPngChunks(png).filter((c) => {
    if (c.type !== "tEXt" && c.type !== "iTXt" && c.type !== "zTXt") return true;
    const nul = c.data.indexOf(0);
    return nul <= 0 || !keys.has(latin1(c.data.subarray(0, nul)));
  });
  const text = Object.entries(entries).map(([keyword, value]) => {
    const raw = `${keyword}\0${value}`;
    const data = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const code = raw.charCodeAt(i);
      if (code > 255) throw new RangeError(`Cannot write PNG text "${keyword}": it is not Latin-1`);
      data[i] = code;
    }
    return chunkBytes("tEXt", data);
  });
  return pngFile([...kept.slice(0, -1).map((c) => chunkBytes(c.type, c.data)), ...text]);
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * A valid 1×1 grey PNG (8-bit greyscale, zlib "stored" block), to carry an exported card's text
 * when the agent has no picture.
 */
export function blankPng(): Uint8Array<ArrayBuffer> {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, 1);
  view.setUint32(4, 1);
  ihdr.set([8, 0, 0, 0, 0], 8); // depth 8, greyscale, deflate, adaptive filter, no interlace
  const raw = new Uint8Array([0, 0x80]); // filter "none", one grey pixel
  const zlib = new Uint8Array(2 + 5 + raw.length + 4);
  zlib.set([0x78, 0x01, 0x01, raw.length, 0, ~raw.length & 0xff, 0xff], 0);
  zlib.set(raw, 7);
  new DataView(zlib.buffer).setUint32(7 + raw.length, adler32(raw));
  return pngFile([chunkBytes("IHDR", ihdr), chunkBytes("IDAT", zlib)]);
}
