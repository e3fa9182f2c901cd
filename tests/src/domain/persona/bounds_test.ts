import assert from "node:assert/strict";
import { boundaryHints } from "../../../../src/domain/persona/bounds.ts";

Deno.test("boundaryHints() flags later years, the distant future and predictions", () => {
  const now = "2023-02-13T07:00:00";
  assert.match(
    boundaryHints("What happened in 2031?", now)[0],
    /2031, after the present year 2023/,
  );
  assert.equal(boundaryHints("Back in 1999 I was young", now).length, 0);
  assert.equal(boundaryHints("Where will you be in ten years?", now).length, 1);
  assert.match(boundaryHints("Who will win the election?", now)[0], /prediction/);
});

Deno.test("boundaryHints() leaves near plans alone", () => {
  const now = "2023-02-13T07:00:00";
  assert.deepEqual(boundaryHints("What are you doing tomorrow at 10?", now), []);
  assert.deepEqual(boundaryHints("Shall we meet tonight?", now), []);
});
