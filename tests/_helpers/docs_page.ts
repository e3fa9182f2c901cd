/** @module What the docs page's tests and bench look for: one element per listed operation. */

/** Matches each operation the renderer lists. */
export const DOCS_OPERATION_SELECTOR = ".opblock";

/** A page predicate (for `page.waitForFunction`): at least `count` operations are listed. */
export function allListed(count: number): string {
  return `document.querySelectorAll(${JSON.stringify(DOCS_OPERATION_SELECTOR)}).length >= ${count}`;
}
