/** @module Pages of worlds and agents: `limit`, and `cursor` = the `next` of the page before. */
import { z } from "zod";

/** The query of the id-ordered lists (`GET /v1/worlds`, `GET …/agents`). */
export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "A cursor is the `next` of the previous page")
    .optional()
    .meta({ description: "The `next` of the previous page" }),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** A page of items ordered by id; `next` is null on the last page. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** The page of `items` (ordered by id) after the cursor's id. */
export function pageById<T extends { id: string }>(
  items: readonly T[],
  query: PageQuery,
): Page<T> {
  const after = query.cursor;
  const rest = after === undefined ? items : items.filter((item) => item.id > after);
  const page = rest.slice(0, query.limit);
  return {
    items: page,
    next: rest.length > query.limit ? page[page.length - 1].id : null,
  };
}
