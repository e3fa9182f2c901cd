import assert from "node:assert/strict";
import { ConflictError, NotFoundError } from "../../../src/domain/errors.ts";
import type {
  DocumentKey,
  DocumentStore,
  ReplaceOptions,
} from "../../../src/ports/document_store.ts";
import { updateDocument } from "../../../src/ports/update_document.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";

const key: DocumentKey = { collection: "counters", scope: "w", id: "c" };

/** The store, with a rival write slipped in before each of our first `rivals` replaces. */
function contended(store: DocumentStore, rivals: number): DocumentStore {
  let left = rivals;
  return {
    ...store,
    get: (k) => store.get(k),
    create: (k, v) => store.create(k, v),
    list: (c, s) => store.list(c, s),
    delete: (k) => store.delete(k),
    async replace<T>(k: DocumentKey, value: T, options: ReplaceOptions) {
      if (left-- > 0) {
        const now = await store.get<{ n: number }>(k);
        await store.replace(k, { n: now!.value.n + 100 }, { expectedVersion: now!.version });
      }
      return await store.replace(k, value, options);
    },
  } as DocumentStore;
}

Deno.test("updateDocument() creates a missing document, then changes it from what is stored", async () => {
  await using deps = await makeTestDeps();
  const docs = deps.storage.documents;
  const inc = (c: { n: number } | null) => ({ n: (c?.n ?? 0) + 1 });
  assert.deepEqual(await updateDocument(docs, key, { change: inc }), { n: 1 });
  assert.deepEqual(await updateDocument(docs, key, { change: inc }), { n: 2 });
  assert.deepEqual((await docs.get(key))?.value, { n: 2 });
});

Deno.test("updateDocument() applies the change to the rival's value after losing a race", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(key, { n: 0 });
  const docs = contended(deps.storage.documents, 2);
  const seen: number[] = [];
  const result = await updateDocument<{ n: number }>(docs, key, {
    change: (c) => {
      seen.push(c!.n);
      return { n: c!.n + 1 };
    },
  });
  assert.deepEqual(seen, [0, 100, 200]);
  assert.deepEqual(result, { n: 201 });
  assert.deepEqual((await deps.storage.documents.get(key))?.value, { n: 201 });
});

Deno.test("updateDocument() answers ConflictError when every attempt loses", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(key, { n: 0 });
  const docs = contended(deps.storage.documents, 99);
  await assert.rejects(
    updateDocument<{ n: number }>(docs, key, {
      change: (c) => ({ n: c!.n + 1 }),
      attempts: 3,
      conflict: "busy counter",
    }),
    (err) => err instanceof ConflictError && err.message === "busy counter",
  );
  // Only the rivals' three writes landed.
  assert.deepEqual((await deps.storage.documents.get(key))?.value, { n: 300 });
});

Deno.test("updateDocument() keeps the document when the change returns undefined, and never creates with create: false", async () => {
  await using deps = await makeTestDeps();
  const docs = deps.storage.documents;
  assert.equal(await updateDocument(docs, key, { change: () => undefined }), null);
  await assert.rejects(
    updateDocument(docs, key, { change: () => ({ n: 1 }), create: false, attempts: 2 }),
    ConflictError,
  );
  assert.equal(await docs.get(key), null);
  await assert.rejects(
    updateDocument(docs, key, {
      change: (c) => {
        if (c === null) throw new NotFoundError("not_found", "gone");
        return c;
      },
      create: false,
    }),
    NotFoundError,
  );
  await docs.create(key, { n: 5 });
  assert.deepEqual(await updateDocument(docs, key, { change: () => undefined }), { n: 5 });
});

Deno.test("updateDocument() uses a version already read for its first attempt", async () => {
  await using deps = await makeTestDeps();
  const created = await deps.storage.documents.create(key, { n: 1 });
  let gets = 0;
  const docs = {
    ...deps.storage.documents,
    get: <T>(k: DocumentKey) => {
      gets++;
      return deps.storage.documents.get<T>(k);
    },
    create: deps.storage.documents.create.bind(deps.storage.documents),
    replace: deps.storage.documents.replace.bind(deps.storage.documents),
  } as DocumentStore;
  await updateDocument<{ n: number }>(docs, key, {
    change: (c) => ({ n: c!.n + 1 }),
    read: created,
  });
  assert.equal(gets, 0);
  assert.deepEqual((await deps.storage.documents.get(key))?.value, { n: 2 });
});
