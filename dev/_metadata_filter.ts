/**
 * @module The one shape of Upstash Vector metadata filter the product sends, for the dev vector
 * server: string equalities joined by AND, e.g. `worldId = 'w1' AND agentId = 'a1'` (see
 * `lib/upstash/upstash_vector_index.ts`). Keywords are case-insensitive. The hosted index
 * understands far more (OR, IN, <, GLOB, CONTAINS…); the stand-in refuses all of it with a
 * {@linkcode FilterSyntaxError}, so a product change that starts sending more fails loudly in
 * tests instead of being half-understood.
 */

/** A filter the dev server does not understand. */
export class FilterSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FilterSyntaxError";
  }
}

/** A compiled filter: true when a vector's metadata matches. */
export type MetadataPredicate = (metadata: Record<string, unknown> | undefined) => boolean;

const EQUALITY = /^\s*([A-Za-z_$][\w$]*)\s*=\s*'([^']*)'\s*$/;

/**
 * Compiles a filter string; an empty or blank filter matches everything. A field that is
 * missing or not a string never matches.
 *
 * @throws FilterSyntaxError for anything but `field = 'text'` terms joined by AND
 */
export function compileFilter(filter: string): MetadataPredicate {
  if (filter.trim() === "") return () => true;
  const terms = filter.split(/\s+AND\s+/i).map((term) => {
    const match = EQUALITY.exec(term);
    if (!match) {
      throw new FilterSyntaxError(
        `Unsupported filter term "${term.trim()}" in "${filter}": the dev vector server ` +
          `understands only field = 'text' terms joined by AND, e.g. worldId = 'w1' AND agentId = 'a1'`,
      );
    }
    return { field: match[1], value: match[2] };
  });
  return (metadata) => terms.every(({ field, value }) => metadata?.[field] === value);
}
