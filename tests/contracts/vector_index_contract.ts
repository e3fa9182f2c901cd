/** @module Contract cases every VectorIndex adapter must pass. */
import assert from "node:assert/strict";
import type { VectorEntry, VectorMatch } from "../../src/ports/vector_index.ts";
import {
  assertRejectsCode,
  type ContractCases,
  mid,
  newScope,
  newWorldId,
} from "./_contract_support.ts";

/** Scores may be rounded by a backend (e.g. float32), never by more than this. */
const TOLERANCE = 1e-3;

/** `scale · (cos θ · e0 + sin θ · e1)`: its cosine with e0 is cos θ whatever the scale. */
function angled(dimensions: number, degrees: number, scale = 1): Float32Array {
  const v = new Float32Array(dimensions);
  const rad = (degrees * Math.PI) / 180;
  v[0] = scale * Math.cos(rad);
  v[1] = scale * Math.sin(rad);
  return v;
}

/** A vector along one axis (`axis < dimensions`). */
function axis(dimensions: number, index: number, scale = 1): Float32Array {
  const v = new Float32Array(dimensions);
  v[index] = scale;
  return v;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

function assertMatches(actual: VectorMatch[], expected: [string, number][]): void {
  assert.deepEqual(actual.map((m) => m.id), expected.map(([id]) => id));
  actual.forEach((m, i) => {
    const want = expected[i][1];
    assert.ok(Math.abs(m.score - want) < TOLERANCE, `score of ${m.id}: ${m.score} ≉ ${want}`);
  });
}

function byId(entries: VectorEntry[]): Map<string, Float32Array> {
  return new Map(entries.map((e) => [e.id, e.vector]));
}

/** Registers the VectorIndex cases. */
export function vectorIndexContract(cases: ContractCases): void {
  cases.add(
    "VectorIndex.query() ranks by cosine similarity, best first, at most topK",
    async (s) => {
      const dims = s.vectors.dimensions;
      assert.ok(Number.isInteger(dims) && dims >= 2, "The contract needs at least 2 dimensions");
      const scope = newScope();
      await s.vectors.upsert(scope, [
        { id: mid("v-90"), vector: angled(dims, 90, 0.5) },
        { id: mid("v-0"), vector: angled(dims, 0, 2) },
        { id: mid("v-180"), vector: angled(dims, 180, 5) },
        { id: mid("v-60"), vector: angled(dims, 60) },
        { id: mid("v-30"), vector: angled(dims, 30, 3) },
      ]);
      const query = angled(dims, 0);
      assertMatches(await s.vectors.query(scope, query, 3), [
        ["v-0", 1],
        ["v-30", Math.cos(Math.PI / 6)],
        ["v-60", 0.5],
      ]);
      const all = [
        ["v-0", 1],
        ["v-30", Math.cos(Math.PI / 6)],
        ["v-60", 0.5],
        ["v-90", 0],
        ["v-180", -1],
      ] as [string, number][];
      assertMatches(await s.vectors.query(scope, query, 10), all);
      // The query's length does not matter either.
      assertMatches(await s.vectors.query(scope, angled(dims, 0, 0.01), 5), all);
      assertMatches(await s.vectors.query(scope, angled(dims, 180, 7), 2), [
        ["v-180", 1],
        ["v-90", 0],
      ]);
      assertMatches(await s.vectors.query(scope, query, 1), [["v-0", 1]]);
    },
  );

  cases.add(
    "VectorIndex.queryMany() answers as query() for each vector, in order",
    async (s) => {
      const dims = s.vectors.dimensions;
      const scope = newScope();
      assert.deepEqual(await s.vectors.queryMany(scope, [angled(dims, 0)], 3), [[]]);
      await s.vectors.upsert(scope, [
        { id: mid("v-0"), vector: angled(dims, 0, 2) },
        { id: mid("v-90"), vector: angled(dims, 90) },
        { id: mid("v-180"), vector: angled(dims, 180, 5) },
      ]);
      const asked = [angled(dims, 0), angled(dims, 180, 3), angled(dims, 80)];
      const many = await s.vectors.queryMany(scope, asked, 2);
      assert.equal(many.length, 3);
      for (const [i, vector] of asked.entries()) {
        const one = await s.vectors.query(scope, vector, 2);
        assertMatches(many[i], one.map((m) => [m.id, m.score]));
      }
      assertMatches((await s.vectors.queryMany(scope, [asked[1]], 1))[0], [["v-180", 1]]);
      assert.deepEqual(await s.vectors.queryMany(scope, [], 2), []);
    },
  );

  cases.add(
    "VectorIndex.search() answers as query() and with the least cosine in the scope",
    async (s) => {
      const dims = s.vectors.dimensions;
      const scope = newScope();
      assert.deepEqual(await s.vectors.search(scope, angled(dims, 0), 3), {
        matches: [],
        lowest: null,
      });
      await s.vectors.upsert(scope, [
        { id: mid("s-0"), vector: angled(dims, 0, 2) },
        { id: mid("s-120"), vector: angled(dims, 120) },
        { id: mid("s-60"), vector: angled(dims, 60, 0.5) },
      ]);
      const found = await s.vectors.search(scope, angled(dims, 0), 2);
      assertMatches(found.matches, [["s-0", 1], ["s-60", 0.5]]);
      assert.ok(Math.abs(found.lowest! + 0.5) < TOLERANCE, `lowest ${found.lowest}`);
    },
  );

  cases.add(
    "VectorIndex.cosines() scores the query against these ids only, within the tolerance",
    async (s) => {
      const dims = s.vectors.dimensions;
      const scope = newScope();
      await s.vectors.upsert(scope, [
        { id: mid("c-0"), vector: angled(dims, 0, 2) },
        { id: mid("c-60"), vector: angled(dims, 60, 0.3) },
        { id: mid("c-135"), vector: angled(dims, 135) },
        { id: mid("gone"), vector: angled(dims, 10) },
      ]);
      await s.vectors.delete(scope, [mid("gone")]);
      await s.vectors.upsert(newScope(scope.worldId), [{
        id: mid("c-0"),
        vector: angled(dims, 90),
      }]);
      const got = await s.vectors.cosines(
        scope,
        [mid("c-135"), mid("ghost"), mid("c-0"), mid("c-60"), mid("gone")],
        angled(dims, 0, 4),
      );
      assert.deepEqual([...got.keys()].sort(), ["c-0", "c-135", "c-60"]);
      const want: Record<string, number> = { "c-0": 1, "c-60": 0.5, "c-135": -Math.SQRT1_2 };
      for (const [id, cos] of got) {
        assert.ok(Math.abs(cos - want[id]) <= TOLERANCE, `${id}: ${cos} vs ${want[id]}`);
      }
      assert.equal((await s.vectors.cosines(newScope(), [mid("c-0")], angled(dims, 0))).size, 0);
      await assertRejectsCode(
        s.vectors.cosines(scope, [mid("c-0")], new Float32Array(dims + 1)),
        "invalid_request",
      );
    },
  );

  cases.add("VectorIndex.query() of an empty scope returns no matches", async (s) => {
    const scope = newScope();
    assert.deepEqual(await s.vectors.query(scope, axis(s.vectors.dimensions, 0), 5), []);
  });

  cases.add("VectorIndex.upsert() replaces an existing vector", async (s) => {
    const dims = s.vectors.dimensions;
    const scope = newScope();
    await s.vectors.upsert(scope, [
      { id: mid("v-a"), vector: axis(dims, 0) },
      { id: mid("v-b"), vector: axis(dims, 1) },
    ]);
    await s.vectors.upsert(scope, [{ id: mid("v-a"), vector: axis(dims, 1, 4) }]);
    await s.vectors.upsert(scope, [{ id: mid("v-a"), vector: axis(dims, 1, 4) }]);
    const matches = await s.vectors.query(scope, axis(dims, 1), 10);
    assert.deepEqual(matches.map((m) => m.id).sort(), ["v-a", "v-b"], "One entry per id");
    matches.forEach((m) => assert.ok(Math.abs(m.score - 1) < TOLERANCE));
    const old = await s.vectors.query(scope, axis(dims, 0), 10);
    assert.equal(old.length, 2);
    old.forEach((m) => assert.ok(Math.abs(m.score) < TOLERANCE, "The old vector is gone"));
    const [fetched] = await s.vectors.fetch(scope, [mid("v-a")]);
    assert.ok(Math.abs(cosine(fetched.vector, axis(dims, 1)) - 1) < TOLERANCE);
  });

  cases.add(
    "VectorIndex.upsert() throws invalid_request on a wrong dimension and writes nothing",
    async (s) => {
      const dims = s.vectors.dimensions;
      const scope = newScope();
      await assertRejectsCode(
        s.vectors.upsert(scope, [
          { id: mid("v-ok"), vector: axis(dims, 0) },
          { id: mid("v-short"), vector: new Float32Array(dims - 1).fill(1) },
        ]),
        "invalid_request",
      );
      await assertRejectsCode(
        s.vectors.upsert(scope, [{
          id: mid("v-long"),
          vector: new Float32Array(dims + 1).fill(1),
        }]),
        "invalid_request",
      );
      assert.deepEqual(await s.vectors.query(scope, axis(dims, 0), 10), []);
      assert.deepEqual(await s.vectors.fetch(scope, [mid("v-ok"), mid("v-short")]), []);
    },
  );

  cases.add(
    "VectorIndex.upsert() throws invalid_request on a zero or non-finite vector and writes nothing",
    async (s) => {
      const dims = s.vectors.dimensions;
      const scope = newScope();
      const nan = axis(dims, 0);
      nan[1] = Number.NaN;
      const infinite = axis(dims, 0);
      infinite[2] = Number.POSITIVE_INFINITY;
      for (
        const [id, vector] of [["zero", new Float32Array(dims)], ["nan", nan], ["inf", infinite]]
      ) {
        await assertRejectsCode(
          s.vectors.upsert(scope, [
            { id: mid("v-ok"), vector: axis(dims, 0) },
            { id: mid(`v-${id}`), vector: vector as Float32Array },
          ]),
          "invalid_request",
        );
      }
      assert.deepEqual(await s.vectors.ids(scope), []);
    },
  );

  cases.add("VectorIndex.query() throws invalid_request on a wrong dimension", async (s) => {
    const dims = s.vectors.dimensions;
    const scope = newScope();
    await s.vectors.upsert(scope, [{ id: mid("v-a"), vector: axis(dims, 0) }]);
    await assertRejectsCode(
      s.vectors.query(scope, new Float32Array(dims + 3).fill(1), 5),
      "invalid_request",
    );
    await assertRejectsCode(
      s.vectors.query(scope, new Float32Array(dims - 1).fill(1), 5),
      "invalid_request",
    );
  });

  cases.add("VectorIndex.fetch() returns stored vectors and leaves out missing ids", async (s) => {
    const dims = s.vectors.dimensions;
    const scope = newScope();
    const a = angled(dims, 20, 3);
    const b = angled(dims, 200);
    await s.vectors.upsert(scope, [{ id: mid("v-a"), vector: a }, { id: mid("v-b"), vector: b }]);
    const fetched = await s.vectors.fetch(scope, [mid("v-b"), mid("v-missing"), mid("v-a")]);
    assert.equal(fetched.length, 2);
    const map = byId(fetched);
    assert.deepEqual([...map.keys()].sort(), ["v-a", "v-b"]);
    for (const [id, original] of [["v-a", a], ["v-b", b]] as const) {
      const vector = map.get(id)!;
      assert.ok(vector instanceof Float32Array);
      assert.equal(vector.length, dims);
      assert.ok(Math.abs(cosine(vector, original) - 1) < TOLERANCE, `${id} keeps its direction`);
    }
    assert.deepEqual(await s.vectors.fetch(scope, []), []);
    assert.deepEqual(await s.vectors.fetch(scope, [mid("v-missing")]), []);
  });

  cases.add("VectorIndex.delete() removes vectors and ignores unknown ids", async (s) => {
    const dims = s.vectors.dimensions;
    const scope = newScope();
    await s.vectors.upsert(scope, [
      { id: mid("v-a"), vector: angled(dims, 0) },
      { id: mid("v-b"), vector: angled(dims, 10) },
      { id: mid("v-c"), vector: angled(dims, 20) },
    ]);
    await s.vectors.query(scope, angled(dims, 0), 1); // an adapter may cache after a query
    await s.vectors.delete(scope, [mid("v-a"), mid("v-ghost")]);
    await s.vectors.delete(scope, [mid("v-a")]);
    await s.vectors.delete(scope, []);
    const matches = await s.vectors.query(scope, angled(dims, 0), 10);
    assert.deepEqual(matches.map((m) => m.id), ["v-b", "v-c"]);
    assert.deepEqual(await s.vectors.fetch(scope, [mid("v-a")]), []);
    await s.vectors.upsert(scope, [{ id: mid("v-a"), vector: angled(dims, 5) }]);
    assert.deepEqual((await s.vectors.query(scope, angled(dims, 0), 10)).map((m) => m.id), [
      "v-a",
      "v-b",
      "v-c",
    ]);
  });

  cases.add(
    "VectorIndex.similarities() (optional) gives every vector's cosine in the scope by id",
    async (s) => {
      if (s.vectors.similarities === undefined) return; // Optional: hosted indexes omit it.
      const dims = s.vectors.dimensions;
      const scope = newScope();
      const other = newScope(scope.worldId);
      await s.vectors.upsert(scope, [
        { id: mid("v-0"), vector: angled(dims, 0, 3) },
        { id: mid("v-60"), vector: angled(dims, 60) },
        { id: mid("v-180"), vector: angled(dims, 180, 0.2) },
      ]);
      await s.vectors.upsert(other, [{ id: mid("v-x"), vector: angled(dims, 0) }]);
      const cosineOf = await s.vectors.similarities(scope, angled(dims, 0, 9));
      const expected: [string, number][] = [["v-0", 1], ["v-60", 0.5], ["v-180", -1]];
      for (const [id, want] of expected) {
        const got = cosineOf(mid(id));
        assert.ok(got !== undefined && Math.abs(got - want) < TOLERANCE, `${id}: ${got} ≉ ${want}`);
      }
      assert.equal(cosineOf(mid("v-x")), undefined, "Other scopes' vectors are not scored");
      assert.equal(cosineOf(mid("v-missing")), undefined);
      // A later write does not change scores already taken.
      await s.vectors.delete(scope, [mid("v-0")]);
      assert.ok(Math.abs(cosineOf(mid("v-180"))! + 1) < TOLERANCE);
      const empty = await s.vectors.similarities(newScope(), angled(dims, 0));
      assert.equal(empty(mid("v-0")), undefined);
      await assertRejectsCode(
        s.vectors.similarities(scope, new Float32Array(dims + 1).fill(1)),
        "invalid_request",
      );
    },
  );

  cases.add("VectorIndex never matches one scope's vectors from another", async (s) => {
    const dims = s.vectors.dimensions;
    const home = newScope();
    const sibling = newScope(home.worldId);
    const twin = newScope(newWorldId(), home.agentId);
    await s.vectors.upsert(home, [{ id: mid("v-1"), vector: angled(dims, 0) }]);
    await s.vectors.upsert(sibling, [{ id: mid("v-2"), vector: angled(dims, 0) }]);
    await s.vectors.upsert(twin, [{ id: mid("v-1"), vector: angled(dims, 90) }]);

    assertMatches(await s.vectors.query(home, angled(dims, 0), 10), [["v-1", 1]]);
    assertMatches(await s.vectors.query(sibling, angled(dims, 0), 10), [["v-2", 1]]);
    assertMatches(await s.vectors.query(twin, angled(dims, 0), 10), [["v-1", 0]]);
    assert.deepEqual(await s.vectors.fetch(sibling, [mid("v-1")]), []);
    const [twinV1] = await s.vectors.fetch(twin, [mid("v-1")]);
    assert.ok(Math.abs(cosine(twinV1.vector, angled(dims, 90)) - 1) < TOLERANCE);

    await s.vectors.delete(twin, [mid("v-1")]);
    await s.vectors.delete(sibling, [mid("v-1")]);
    assertMatches(await s.vectors.query(home, angled(dims, 0), 10), [["v-1", 1]]);
    assert.deepEqual(await s.vectors.query(twin, angled(dims, 0), 10), []);
    assert.equal((await s.vectors.fetch(home, [mid("v-1")])).length, 1);
  });

  cases.add(
    "VectorIndex.ids() lists every id of one scope, after upserts and deletes",
    async (s) => {
      const scope = newScope();
      const other = newScope(scope.worldId);
      const d = s.vectors.dimensions;
      assert.deepEqual(await s.vectors.ids(scope), [], "an agent without vectors");
      const entries = Array.from({ length: 1_200 }, (_, i) => ({
        id: mid(`v-${String(i).padStart(4, "0")}`),
        vector: angled(d, i % 90),
      }));
      await s.vectors.upsert(scope, entries);
      await s.vectors.upsert(other, [{ id: mid("elsewhere"), vector: axis(d, 0) }]);
      await s.vectors.delete(scope, [mid("v-0007")]);
      const ids = (await s.vectors.ids(scope)).sort();
      assert.equal(ids.length, 1_199);
      assert.deepEqual(await s.vectors.counts([scope, other, newScope()]), [1_199, 1, 0]);
      assert.ok(!ids.includes(mid("v-0007")));
      assert.ok(!ids.includes(mid("elsewhere")));
    },
  );
}
