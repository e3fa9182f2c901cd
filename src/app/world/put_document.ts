/** @module Writes a document that only the running tick writes (ticks of a world never overlap). */
import { type Deps, type DocumentKey, writeOverRead } from "../../ports/mod.ts";

/**
 * Creates or replaces a document with the version read earlier (`undefined`: it did not
 * exist). A lost compare-and-set can only come from a step of an earlier tick that outlived its
 * lease; the newer value wins then.
 * @throws `store_unavailable`
 */
export async function putDocument<T>(
  deps: Pick<Deps, "storage">,
  key: DocumentKey,
  { value, version }: { value: T; version: number | undefined },
): Promise<void> {
  const docs = deps.storage.documents;
  if (await writeOverRead(docs, key, { value, version })) return;
  // Created or replaced meanwhile: replace what is there now.
  const current = await docs.get<T>(key);
  if (current) await docs.replace(key, value, { expectedVersion: current.version });
}
