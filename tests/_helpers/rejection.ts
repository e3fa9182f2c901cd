/** @module The error a promise rejects with, for tests that then check its code and message. */
import assert from "node:assert/strict";

/** The error `promise` rejects with; fails the test if it resolves or rejects with another type. */
export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected a ${type.name}, got ${error}`);
    return error;
  }
  assert.fail(`expected a rejection with a ${type.name}`);
}
