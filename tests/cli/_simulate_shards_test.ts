import assert from "node:assert/strict";
import { shardsOf } from "../../cli/_simulate_shards.ts";

Deno.test("shardsOf() splits the towns evenly, numbered on, never an empty share", () => {
  assert.deepEqual(shardsOf(40, 2), [{ firstTown: 1, towns: 20 }, { firstTown: 21, towns: 20 }]);
  assert.deepEqual(shardsOf(5, 3), [
    { firstTown: 1, towns: 2 },
    { firstTown: 3, towns: 2 },
    { firstTown: 5, towns: 1 },
  ]);
  assert.deepEqual(shardsOf(2, 4), [{ firstTown: 1, towns: 1 }, { firstTown: 2, towns: 1 }]);
});
