/** @module Maps items through an async function with at most N running at once. */

/**
 * Calls `fn` for every item, at most `limit` at a time, and resolves with the results in item
 * order. `fn` should not throw: the first rejection rejects the whole map (the calls already
 * started still run to their end).
 * @throws {RangeError} when `limit` is not a positive integer.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`Cannot run with a concurrency of ${limit}: use a whole number from 1`);
  }
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
