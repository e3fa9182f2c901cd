/** @module Embed a question: the query vectors retrieval scores relevance against (Generative Agents §4.1). */
import type { Deps } from "../ports/mod.ts";
import type { AgentScope, Usage } from "../domain/mod.ts";
import { embedAs } from "./_embed.ts";

/** Whose queries these are: the usage label each caller is counted under. */
export type QueryOperation = "retrieve.query" | "recall.query";

/**
 * Embeds an agent's queries in one call, one vector per query in order.
 * @throws `model_*` when embedding fails.
 */
export async function embedQueries(
  scope: AgentScope,
  input: { queries: readonly string[]; operation: QueryOperation },
  models: Pick<Deps, "embedder">,
): Promise<{ vectors: Float32Array[]; usage: Usage }> {
  return await embedAs(models, scope, { texts: input.queries, operation: input.operation });
}
