/**
 * @module The model wrapper that passes the world's seed with every call: the offline model keys
 * its choices by it, which makes a tick replay the same at any concurrency.
 */
import type { Deps } from "../ports/mod.ts";

/** Deps whose model calls carry the world's seed (the offline model keys its choices by it). */
export function withSeed(deps: Deps, seed: number | undefined): Deps {
  if (seed === undefined) return deps;
  const model = deps.model;
  return {
    ...deps,
    model: {
      info: model.info,
      complete: (prompt, attribution) => model.complete(prompt, { ...attribution, seed }),
      ...(model.stream === undefined ? {} : {
        stream: (prompt, attribution, options) =>
          model.stream!(prompt, { ...attribution, seed }, options),
      }),
    },
  };
}
