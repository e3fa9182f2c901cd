/**
 * @module API keys in the document store: created by the admin, listed without their secrets,
 * deleted (refused from the next request on, on every instance: each request reads the store).
 *
 * A secret is `sk_sim_<key id>_<43 random base64url characters>` (256 bits). Only its SHA-256
 * is stored; a request's secret names its key id, the stored hash is read and compared with
 * the hash of what was sent in constant time.
 */
import { type ApiKey, type CreateKeyInput } from "../../src/domain/mod.ts";
import type { DocumentKey, DocumentStore } from "../../src/ports/mod.ts";

/** A key as stored: the listed fields and the hash of its secret. */
interface StoredKey extends ApiKey {
  secretHash: string;
}

const COLLECTION = "api_keys";
const SECRET = /^sk_sim_(k_[0-9a-f]{20})_[A-Za-z0-9_-]{43}$/;

function keyDoc(id: string): DocumentKey {
  return { collection: COLLECTION, scope: "", id };
}

/** The shape every secret has, so other bearer values are not looked up at all. */
export function looksLikeSecret(value: string): boolean {
  return SECRET.test(value);
}

/**
 * Creates a key; the secret is returned here and never again.
 * @throws `store_unavailable` when the store fails.
 */
export async function createKey(
  documents: DocumentStore,
  input: CreateKeyInput,
  options: { now: Date },
): Promise<{ key: ApiKey; secret: string }> {
  const id = `k_${hex(crypto.getRandomValues(new Uint8Array(10)))}`;
  const secret = `sk_sim_${id}_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const key: ApiKey = { id, ...input, createdAt: options.now.toISOString() };
  await documents.create<StoredKey>(keyDoc(id), { ...key, secretHash: await sha256(secret) });
  return { key, secret };
}

/** Every key, oldest id first, without secrets. */
export async function listKeys(documents: DocumentStore): Promise<ApiKey[]> {
  return (await documents.list<StoredKey>(COLLECTION, "")).map((d) => publicKey(d.value));
}

/** Deletes a key; returns whether it existed. */
export function deleteKey(documents: DocumentStore, id: string): Promise<boolean> {
  if (!/^k_[0-9a-f]{20}$/.test(id)) return Promise.resolve(false);
  return documents.delete(keyDoc(id));
}

/** The key with this id, or null (deleted or never made). */
export async function keyById(documents: DocumentStore, id: string): Promise<ApiKey | null> {
  if (!/^k_[0-9a-f]{20}$/.test(id)) return null;
  const doc = await documents.get<StoredKey>(keyDoc(id));
  return doc ? publicKey(doc.value) : null;
}

/**
 * The key a secret belongs to, or null when it belongs to none (unknown, deleted, or a wrong
 * secret for an existing id). Expiry is the caller's to check.
 */
export async function keyForSecret(
  documents: DocumentStore,
  secret: string,
): Promise<ApiKey | null> {
  const match = SECRET.exec(secret);
  if (!match) return null;
  const [doc, sentHash] = await Promise.all([
    documents.get<StoredKey>(keyDoc(match[1])),
    sha256(secret),
  ]);
  if (!doc) return null;
  return sameText(doc.value.secretHash, sentHash) ? publicKey(doc.value) : null;
}

/** Constant-time comparison of two strings (the time depends on their lengths only). */
export function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function publicKey(stored: StoredKey): ApiKey {
  const { secretHash: _hidden, ...key } = stored;
  return key;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return hex(new Uint8Array(digest));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}
