/** @module Tests the dev Upstash Vector server's wire protocol with fetch and through @upstash/vector. */
import assert from "node:assert/strict";
import { Index } from "@upstash/vector";
import {
  startUpstashVectorServer,
  type UpstashVectorServer,
} from "../../dev/upstash_vector_server.ts";

const TOKEN = "vector-test-token";

/** Runs `fn` against a fresh 3-dimensional server and closes it. */
function vectorTest(name: string, fn: (server: UpstashVectorServer) => Promise<void>): void {
  Deno.test(name, async () => {
    const server = await startUpstashVectorServer({ token: TOKEN, dimensions: 3 });
    try {
      await fn(server);
    } finally {
      await server.close();
    }
  });
}

interface Call {
  status: number;
  body: { result?: unknown; error?: string; status?: number };
}

async function call(server: UpstashVectorServer, path: string, body?: unknown): Promise<Call> {
  const response = await fetch(`${server.url}/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function result(server: UpstashVectorServer, path: string, body?: unknown): Promise<unknown> {
  const { status, body: json } = await call(server, path, body);
  assert.equal(status, 200, `${path}: ${json.error}`);
  return json.result;
}

async function failure(server: UpstashVectorServer, path: string, body?: unknown): Promise<Call> {
  const answer = await call(server, path, body);
  assert.notEqual(answer.status, 200);
  assert.equal(answer.body.status, answer.status, "Errors carry their status");
  assert.equal(typeof answer.body.error, "string");
  return answer;
}

function close(actual: unknown, expected: number): void {
  assert.ok(
    typeof actual === "number" && Math.abs(actual - expected) < 1e-6,
    `${actual} ≉ ${expected}`,
  );
}

const PEOPLE = [
  {
    id: "klaus",
    vector: [1, 0, 0],
    metadata: { name: "Klaus", age: 20, student: true, city: "Ville" },
  },
  {
    id: "maria",
    vector: [0, 1, 0],
    metadata: { name: "Maria", age: 21, student: true, city: "Ville" },
  },
  { id: "isabella", vector: [0, 0, 1], metadata: { name: "Isabella", age: 34, student: false } },
  {
    id: "john",
    vector: [-1, 0, 0],
    metadata: {
      name: "John",
      age: 45,
      student: false,
      city: "Oak Hill",
      job: { title: "pharmacist" },
    },
  },
];

async function ids(server: UpstashVectorServer, filter: string): Promise<string[]> {
  const matches = await result(server, "query", { vector: [1, 1, 1], topK: 10, filter });
  return (matches as { id: string }[]).map((m) => m.id).sort();
}

vectorTest(
  "startUpstashVectorServer() answers 401 {error, status} without the token",
  async (s) => {
    for (const authorization of ["", "Bearer wrong"]) {
      const response = await fetch(`${s.url}/info`, {
        method: "POST",
        headers: authorization ? { authorization } : {},
      });
      assert.equal(response.status, 401);
      const body = await response.json();
      assert.equal(body.status, 401);
      assert.ok(!JSON.stringify(body).includes(TOKEN));
    }
  },
);

vectorTest("startUpstashVectorServer() scores COSINE as (1 + cos) / 2, best first", async (s) => {
  assert.equal(await result(s, "upsert", PEOPLE), "Success");
  const matches = await result(s, "query", { vector: [2, 0, 0], topK: 3 }) as {
    id: string;
    score: number;
    vector?: number[];
    metadata?: unknown;
  }[];
  assert.deepEqual(matches.map((m) => m.id), ["klaus", "isabella", "maria"]);
  close(matches[0].score, 1);
  close(matches[1].score, 0.5);
  assert.equal(matches[0].vector, undefined, "No vector unless includeVectors");
  assert.equal(matches[0].metadata, undefined, "No metadata unless includeMetadata");
  const last = await result(s, "query", { vector: [1, 0, 0], topK: 10 }) as { score: number }[];
  assert.equal(last.length, 4);
  close(last[3].score, 0);
  const full = await result(s, "query", {
    vector: [1, 0, 0],
    topK: 1,
    includeVectors: true,
    includeMetadata: true,
  });
  assert.deepEqual(full, [{
    id: "klaus",
    score: 1,
    vector: [1, 0, 0],
    metadata: PEOPLE[0].metadata,
  }]);
  const many = await result(s, "query", [{ vector: [1, 0, 0], topK: 1 }, {
    vector: [0, 1, 0],
    topK: 1,
  }]);
  assert.deepEqual((many as { id: string }[][]).map((r) => r.map((m) => m.id)), [["klaus"], [
    "maria",
  ]]);
});

vectorTest("startUpstashVectorServer() rejects a wrong dimension and writes nothing", async (s) => {
  const answer = await failure(s, "upsert", [
    { id: "ok", vector: [1, 0, 0] },
    { id: "short", vector: [1, 0] },
  ]);
  assert.equal(answer.status, 400);
  assert.match(answer.body.error ?? "", /dimension: 2, expected: 3/);
  assert.deepEqual(await result(s, "fetch", { ids: ["ok", "short"] }), [null, null]);
  assert.equal((await failure(s, "query", { vector: [1, 0, 0, 0], topK: 1 })).status, 400);
  assert.equal((await failure(s, "upsert", { id: "x", vector: ["a", 0, 0] })).status, 400);
  assert.equal((await failure(s, "upsert", { id: "x", data: "text" })).status, 400);
  assert.equal((await failure(s, "query", { vector: [1, 0, 0], topK: 0 })).status, 400);
});

vectorTest("startUpstashVectorServer() keeps namespaces apart", async (s) => {
  await result(s, "upsert/w1:a1", { id: "m-1", vector: [1, 0, 0], metadata: { agent: "a1" } });
  await result(s, "upsert/w1:a2", { id: "m-1", vector: [0, 1, 0] });
  const a1 = await result(s, "query/w1:a1", { vector: [0, 1, 0], topK: 5, includeMetadata: true });
  assert.deepEqual(a1, [{ id: "m-1", score: 0.5, metadata: { agent: "a1" } }]);
  const a2 = await result(s, "fetch/w1:a2", { ids: ["m-1"], includeVectors: true });
  assert.deepEqual(a2, [{ id: "m-1", vector: [0, 1, 0] }]);
  assert.deepEqual(await result(s, "query", { vector: [1, 0, 0], topK: 5 }), []);
  assert.deepEqual(await result(s, "list-namespaces"), ["", "w1:a1", "w1:a2"]);
  const info = await result(s, "info") as Record<string, unknown>;
  assert.equal(info.vectorCount, 2);
  assert.equal(info.dimension, 3);
  assert.equal(info.similarityFunction, "COSINE");
  assert.deepEqual(info.namespaces, {
    "": { vectorCount: 0, pendingVectorCount: 0 },
    "w1:a1": { vectorCount: 1, pendingVectorCount: 0 },
    "w1:a2": { vectorCount: 1, pendingVectorCount: 0 },
  });
  const unknown = await failure(s, "query/nobody", { vector: [1, 0, 0], topK: 1 });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error ?? "", /Namespace "nobody" does not exist/);
  assert.equal(await result(s, "delete-namespace/w1:a2"), "Success");
  assert.deepEqual(await result(s, "list-namespaces"), ["", "w1:a1"]);
  assert.equal((await failure(s, "delete-namespace")).status, 400);
  assert.equal((await failure(s, "delete-namespace/w1:a2")).status, 404);
});

vectorTest(
  "startUpstashVectorServer() filters on the scope equalities the product sends",
  async (s) => {
    const scoped = (id: string, worldId: string, agentId: string) => ({
      id,
      vector: [1, 0, 0],
      metadata: { worldId, agentId },
    });
    await result(s, "upsert", [
      scoped("m1", "w1", "a1"),
      scoped("m2", "w1", "a1"),
      scoped("m3", "w1", "a2"),
      scoped("m4", "w2", "a1"),
      { id: "bare", vector: [1, 0, 0] },
    ]);
    assert.deepEqual(await ids(s, "worldId = 'w1' AND agentId = 'a1'"), ["m1", "m2"]);
    assert.deepEqual(await ids(s, "agentId='a1' and worldId='w2'"), ["m4"], "AND in any case");
    assert.deepEqual(await ids(s, "worldId = 'w1'"), ["m1", "m2", "m3"]);
    assert.deepEqual(await ids(s, "worldId = 'w3' AND agentId = 'a1'"), []);
    assert.deepEqual(await ids(s, ""), ["bare", "m1", "m2", "m3", "m4"], "No filter, every vector");
    await result(s, "upsert", PEOPLE);
    assert.deepEqual(await ids(s, "age = '20'"), [], "A number never equals a string");
    assert.deepEqual(await ids(s, "job = 'pharmacist'"), [], "Nor does an object");
  },
);

vectorTest("startUpstashVectorServer() refuses every other filter with a clear 400", async (s) => {
  await result(s, "upsert", PEOPLE);
  for (
    const filter of [
      "age < 30",
      "age = 20",
      'name = "Klaus"',
      "name != 'Klaus'",
      "name IN ('Maria', 'John')",
      "name = 'Klaus' OR name = 'Maria'",
      "(name = 'Klaus')",
      "NOT name = 'Klaus'",
      "name GLOB 'K*'",
      "job.title = 'pharmacist'",
      "name = 'Klaus' AND",
      "name = 'open",
    ]
  ) {
    const answer = await failure(s, "query", { vector: [1, 0, 0], topK: 1, filter });
    assert.equal(answer.status, 400, filter);
    assert.match(answer.body.error ?? "", /only field = 'text' terms joined by AND/, filter);
  }
  const filteredDelete = await failure(s, "delete", { filter: "name = 'Klaus'" });
  assert.equal(filteredDelete.status, 400);
  assert.match(filteredDelete.body.error ?? "", /no filter delete/);
  assert.deepEqual(await ids(s, ""), ["isabella", "john", "klaus", "maria"], "Nothing deleted");
});

vectorTest("startUpstashVectorServer() fetches, ranges, updates, deletes and resets", async (s) => {
  await result(s, "upsert", PEOPLE);
  const fetched = await result(s, "fetch", { ids: ["maria", "ghost"], includeMetadata: true });
  assert.deepEqual(fetched, [{ id: "maria", metadata: PEOPLE[1].metadata }, null]);
  assert.deepEqual(
    (await result(s, "fetch", { prefix: "j" }) as { id: string }[]).map((v) => v.id),
    ["john"],
  );

  const first = await result(s, "range", { cursor: "0", limit: 3 }) as {
    nextCursor: string;
    vectors: { id: string }[];
  };
  assert.deepEqual(first.vectors.map((v) => v.id), ["isabella", "john", "klaus"]);
  const rest = await result(s, "range", { cursor: first.nextCursor, limit: 3 }) as typeof first;
  assert.deepEqual(rest.vectors.map((v) => v.id), ["maria"]);
  assert.equal(rest.nextCursor, "", "The last page has an empty cursor");

  const patched = await result(s, "update", {
    id: "klaus",
    metadata: { age: 21, city: null },
    metadataUpdateMode: "PATCH",
  });
  assert.deepEqual(patched, { updated: 1 });
  const [klaus] = await result(s, "fetch", { ids: ["klaus"], includeMetadata: true }) as {
    metadata: unknown;
  }[];
  assert.deepEqual(klaus.metadata, { name: "Klaus", age: 21, student: true });
  await result(s, "update", { id: "klaus", metadata: { only: 1 } });
  const [overwritten] = await result(s, "fetch", { ids: ["klaus"], includeMetadata: true }) as {
    metadata: unknown;
  }[];
  assert.deepEqual(overwritten.metadata, { only: 1 });
  assert.deepEqual(await result(s, "update", { id: "ghost", vector: [1, 1, 1] }), { updated: 0 });

  assert.deepEqual(await result(s, "delete", { ids: ["klaus", "ghost"] }), { deleted: 1 });
  assert.deepEqual(await result(s, "delete", { prefix: "is" }), { deleted: 1 });
  assert.equal(await result(s, "reset"), "Success");
  assert.deepEqual(await result(s, "range", { cursor: 0, limit: 10 }), {
    nextCursor: "",
    vectors: [],
  });
  await result(s, "upsert/ns", { id: "x", vector: [1, 0, 0] });
  assert.equal(await result(s, "reset?all"), "Success");
  assert.deepEqual(await result(s, "list-namespaces"), [""]);
});

vectorTest("startUpstashVectorServer() refuses unknown endpoints, data and bad JSON", async (s) => {
  assert.equal((await failure(s, "nope")).status, 404);
  assert.equal((await failure(s, "upsert-data", { id: "a", data: "text" })).status, 400);
  assert.equal((await failure(s, "query-data", { data: "text", topK: 1 })).status, 400);
  const response = await fetch(`${s.url}/upsert`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
    body: "{not json",
  });
  assert.equal(response.status, 400);
  assert.equal((await response.json()).status, 400);
});

vectorTest("startUpstashVectorServer() serves the official @upstash/vector client", async (s) => {
  const index = new Index({ url: s.url, token: TOKEN, enableTelemetry: false, retry: false });
  const ns = index.namespace("world:agent");
  assert.equal(await ns.upsert(PEOPLE), "Success");
  const matches = await ns.query({
    vector: [1, 0.1, 0],
    topK: 2,
    filter: "city = 'Ville'",
    includeMetadata: true,
  });
  assert.deepEqual(matches.map((m) => m.id), ["klaus", "maria"]);
  assert.equal(matches[0].metadata?.name, "Klaus");
  const fetched = await ns.fetch(["john", "ghost"], { includeVectors: true });
  assert.deepEqual(fetched, [{ id: "john", vector: [-1, 0, 0] }, null]);
  assert.deepEqual(await ns.delete(["john"]), { deleted: 1 });
  const range = await ns.range({ cursor: 0, limit: 10 });
  assert.equal(range.vectors.length, 3);
  assert.deepEqual(await index.listNamespaces(), ["", "world:agent"]);
  const info = await index.info();
  assert.equal(info.dimension, 3);
  assert.equal(info.namespaces["world:agent"].vectorCount, 3);
  await assert.rejects(ns.upsert({ id: "bad", vector: [1, 2] }), /dimension/);
  await assert.rejects(
    index.namespace("missing").query({ vector: [1, 0, 0], topK: 1 }),
    /does not exist/,
  );
  assert.equal(await index.deleteNamespace("world:agent"), "Success");
});

Deno.test("startUpstashVectorServer() rejects an empty token or a bad dimension", async () => {
  await assert.rejects(startUpstashVectorServer({ token: "", dimensions: 3 }), TypeError);
  await assert.rejects(startUpstashVectorServer({ token: TOKEN, dimensions: 0 }), TypeError);
  await assert.rejects(startUpstashVectorServer({ token: TOKEN, dimensions: 1.5 }), TypeError);
});
