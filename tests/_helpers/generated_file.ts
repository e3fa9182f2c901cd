/** @module Checks that a committed generated file is what its build task renders today. */
import assert from "node:assert/strict";

/** Fails when the file at `path` (from the repository root) differs from `render()`. */
export async function assertGeneratedFresh(
  path: string,
  render: () => Promise<string>,
  task: string,
): Promise<void> {
  const committed = await Deno.readTextFile(new URL(`../../${path}`, import.meta.url));
  assert.ok(
    committed === await render(),
    `${path} is stale: run \`deno task ${task}\` and commit it`,
  );
}
