/**
 * @module Measures creating the smallville template world for BENCHMARKS.md:
 * `deno run -A --lock=deno.dev.lock tests/bench/template_world.ts [modelMs]`. Before: building the
 * town from its description (`buildTown`: an importance call and an embedding call per agent, 5
 * agents at a time); after: loading it from its archive (`createWorldFromTemplate`). Each is run
 * 5 times into a fresh in-memory embedded store, with the offline model and local embedder, and
 * again with every model and embedding call held `modelMs` (default 400) to stand for a hosted
 * model's round trip. Prints the median wall time and the calls made.
 */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { Embedder } from "../../src/ports/embedder.ts";
import type { LanguageModel } from "../../src/ports/language_model.ts";
import { buildTown } from "../../src/app/templates/build_town.ts";
import { createWorldFromTemplate } from "../../src/app/templates/create_from_template.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import { TOWNS } from "../../towns/mod.ts";

const MODEL_MS = Number(Deno.args[0] ?? 400);
const RUNS = 5;

interface Counted {
  model: LanguageModel;
  embedder: Embedder;
  calls: { completions: number; embeddings: number };
}

function counted(delayMs: number): Counted {
  const model = new OfflineLanguageModel({});
  const embedder = new LocalEmbedder({ dimensions: 384 });
  const calls = { completions: 0, embeddings: 0 };
  // Real time on purpose: a model's latency is what this benchmark simulates.
  const wait = () => delayMs > 0 ? new Promise((r) => setTimeout(r, delayMs)) : null;
  return {
    calls,
    model: {
      info: model.info,
      async complete(prompt, attribution) {
        calls.completions++;
        await wait();
        return await model.complete(prompt, attribution);
      },
    },
    embedder: {
      info: embedder.info,
      async embed(texts, attribution) {
        calls.embeddings++;
        await wait();
        return await embedder.embed(texts, attribution);
      },
    },
  };
}

async function time(
  way: "build" | "load",
  delayMs: number,
): Promise<{ ms: number; calls: Counted["calls"] }> {
  const times: number[] = [];
  let calls = { completions: 0, embeddings: 0 };
  for (let run = 0; run < RUNS; run++) {
    const c = counted(delayMs);
    const storage = await openKvStorage({ dimensions: 384 });
    const deps: Deps = {
      storage,
      model: c.model,
      embedder: c.embedder,
      ids: new RandomIdSource(),
      sleep: abortableSleep,
    };
    const input = CreateWorldInput.parse({ id: "town", name: "Town", template: "smallville" });
    const t0 = performance.now();
    if (way === "build") await buildTown(deps, input, { towns: TOWNS });
    else await createWorldFromTemplate(deps, input, TOWNS);
    times.push(performance.now() - t0);
    calls = c.calls;
    await storage.close();
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(RUNS / 2)], calls };
}

for (const delayMs of [0, MODEL_MS]) {
  for (const way of ["build", "load"] as const) {
    const { ms, calls } = await time(way, delayMs);
    // deno-lint-ignore no-console
    console.log(
      `${way} (model calls ${delayMs} ms): median ${
        ms.toFixed(0)
      } ms, ${calls.completions} completions, ${calls.embeddings} embedding calls`,
    );
  }
}
