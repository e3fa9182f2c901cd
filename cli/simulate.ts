/** @module `deno task simulate`: runs a town and summarises cost and emergent behaviour. */
// deno-lint-ignore no-console
console.error(
  "Cannot simulate yet: towns, ticks and the smallville template arrive with the World issue (#6)",
);
Deno.exit(2);
