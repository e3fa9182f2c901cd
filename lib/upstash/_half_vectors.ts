/**
 * @module Private to lib/upstash: the half-precision copies of vectors the hosted index keeps in
 * Redis (base64 of a Float16Array), and the cosine it scores them with.
 */

/** A vector in half precision, as base64 text (Redis values over REST are text). */
export function encodeHalf(vector: ArrayLike<number>): string {
  const bytes = new Uint8Array(Float16Array.from(vector).buffer);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/** The vector of {@linkcode encodeHalf}'s text, or null when it is not one of `dimensions`. */
export function decodeHalf(text: string, dimensions: number): Float16Array | null {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  if (binary.length !== dimensions * 2) return null;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Float16Array(bytes.buffer);
}

/** The cosine of two vectors (0 when either is zero), clamped to [-1, 1]. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const norm = Math.sqrt(na * nb);
  return norm > 0 ? Math.max(-1, Math.min(1, dot / norm)) : 0;
}
