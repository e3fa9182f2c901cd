/**
 * @module Budget accounting: every model and embedding call adds its calls and tokens to its
 * world's counter for the UTC day and, inside a request made with an API key, to the key's
 * lifetime counter. The checks themselves run before a request (routes/access.ts) or a tick.
 */
import {
  type Attribution,
  keySubject,
  type Usage,
  type UsageRecord,
  worldSubject,
} from "../../src/domain/mod.ts";
import type { Deps, Embedder, LanguageModel, Spend, UsageLedger } from "../../src/ports/mod.ts";
import { currentRequest } from "./request_context.ts";

/** Days a world's daily counter is kept after its last write. */
const DAY_COUNTER_MS = 3 * 86_400_000;

/** The UTC day of a wall-clock time, `YYYY-MM-DD`: world budgets reset at midnight UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const metered = new WeakSet<object>();

/**
 * What records a call's spend from its usage record, for a model or embedder's usage hook: there
 * the usage counters and the spend are written together (one request on the hosted backend,
 * issue 25's busiest hour), each answered attempt as it is reported. Mark the model and embedder
 * so built with {@linkcode spendsInHook}, so {@linkcode meteredDeps} does not count them twice.
 */
export function spendRecorder(
  ledger: UsageLedger,
  options: { now?: () => number } = {},
): (record: UsageRecord) => Promise<void> {
  const now = options.now ?? Date.now;
  return (record) => recordSpend(ledger, { attribution: record, usage: record, now: now() });
}

/** Marks a model or embedder whose usage hook records its spend (`spendRecorder`). */
export function spendsInHook<T extends LanguageModel | Embedder>(port: T): T {
  metered.add(port);
  return port;
}

/**
 * The deps with model and embedder wrapped so each call's usage lands on its budget counters,
 * unless they record it themselves (`spendsInHook`). Wrapping twice is a no-op (the Deno entry
 * meters for the cron, the app for its routes).
 */
export function meteredDeps(deps: Deps, options: { now?: () => number } = {}): Deps {
  if (metered.has(deps.model) && metered.has(deps.embedder)) return deps;
  const now = options.now ?? Date.now;
  const ledger = deps.storage.usage;
  const record = (attribution: Attribution, usage: Usage) =>
    recordSpend(ledger, { attribution, usage, now: now() });
  // Everything else of the ports (info, the health probes) passes straight through.
  const inner = { model: deps.model, embedder: deps.embedder };
  const model: LanguageModel = {
    get info() {
      return inner.model.info;
    },
    ...(inner.model.probe ? { probe: () => inner.model.probe!() } : {}),
    ...(inner.model.stream
      ? {
        async stream(prompt, attribution, options) {
          const completion = await inner.model.stream!(prompt, attribution, options);
          await record(attribution, completion.usage);
          return completion;
        },
      }
      : {}),
    async complete(prompt, attribution) {
      const completion = await deps.model.complete(prompt, attribution);
      await record(attribution, completion.usage);
      return completion;
    },
  };
  const embedder: Embedder = {
    get info() {
      return inner.embedder.info;
    },
    ...(inner.embedder.probe ? { probe: () => inner.embedder.probe!() } : {}),
    async embed(texts, attribution) {
      const result = await deps.embedder.embed(texts, attribution);
      if (result.usage.calls > 0) await record(attribution, result.usage);
      return result;
    },
  };
  metered.add(model);
  metered.add(embedder);
  return {
    ...deps,
    model: metered.has(deps.model) ? deps.model : model,
    embedder: metered.has(deps.embedder) ? deps.embedder : embedder,
  };
}

async function recordSpend(
  ledger: UsageLedger,
  { attribution, usage, now }: { attribution: Attribution; usage: Usage; now: number },
): Promise<void> {
  const spend: Spend = { calls: usage.calls, tokens: usage.promptTokens + usage.completionTokens };
  const keyId = currentRequest()?.keyId;
  try {
    await Promise.all([
      attribution.worldId === undefined
        ? undefined
        : ledger.addSpend(worldSubject(attribution.worldId), utcDay(now), {
          spend,
          expireAfterMs: DAY_COUNTER_MS,
        }),
      keyId === undefined ? undefined : ledger.addSpend(keySubject(keyId), "total", { spend }),
    ]);
  } catch {
    // Accounting must never fail the call it accounts for (the usage ledger does the same).
  }
}
