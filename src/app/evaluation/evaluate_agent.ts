/**
 * @module MREval on a stored agent: its answers to probes under a condition, the variants each
 * metric compares, the judge's scores and their calibration (Memory-Driven Role-Playing §3.2).
 */
import { addUsage, type AgentScope, MREVAL_METRICS, type Usage } from "../../domain/mod.ts";
import { type Deps, type JudgeDeps, judgeLabel } from "../../ports/mod.ts";
import { embedDialogue } from "../../mind/mod.ts";
import { loadAgent, loadPersonaRecord } from "../agents/mod.ts";
import { getWorld } from "../world/mod.ts";
import { mapBounded } from "../engine/mod.ts";
import { anchorStage, prepareTurn, type ReplyContext } from "../persona/mod.ts";
import { EvaluateInput, type EvaluateResult } from "./evaluate_schema.ts";
import { checkEvaluable, defaultProbes } from "./probes.ts";
import { EVALUATOR } from "./character_input.ts";
import { runProbe } from "./probe_runs.ts";
import { aggregate, averageOf, calibrationTable, judgeRuns } from "./scoring.ts";

/** Probes answered at once (each with up to three variants). */
const CONCURRENCY = 3;
/** Memories scanned for the default probes. */
const RECENT = 50;

/**
 * Evaluates an agent: probes (given, or built from its persona and memories) are checked
 * before any model call, answered under the condition with the variants the metrics compare
 * (no memory is written or marked accessed), scored by the judge and calibrated.
 *
 * Calls: the agent's summary when stale, one embedding call, one agent call per probe and
 * variant; one judge call per metric and probe of its ability.
 * @throws `unprocessable` (422) before any call when the probes cannot score a metric;
 * `world_not_found`, `agent_not_found`, `model_*` (the judge's naming the metric), `store_unavailable`.
 */
export async function evaluateAgent(
  deps: Pick<Deps, "storage" | "model" | "embedder"> & JudgeDeps,
  scope: AgentScope,
  body: EvaluateInput,
): Promise<EvaluateResult> {
  const input = EvaluateInput.parse(body);
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const record = await loadPersonaRecord(deps, scope);
  const persona = record?.persona ?? null;
  const metrics = input.metrics ?? [...MREVAL_METRICS];
  const recent = input.probes
    ? []
    : (await deps.storage.memories.list(scope, { limit: RECENT, order: "desc" })).memories;
  const probes = input.probes ?? defaultProbes(agent, persona, recent);
  checkEvaluable(probes, metrics, persona);

  const attribution = { worldId: world.id, agentId: agent.id, operation: "evaluate" };
  const base = { world, agent, record, at: world.clock.now, ablation: "full" as const };
  const { anchor, usage: anchorUsage } = await anchorStage(deps, base);
  const ctx: ReplyContext = { ...base, anchor };
  const embedded = await embedDialogue(deps, {
    persona,
    queries: probes.map((p) => p.message),
  }, { ...attribution, operation: "evaluate.select" });
  const agentUsage: Usage[] = [anchorUsage, embedded.usage];
  const runs = await mapBounded(probes, CONCURRENCY, async (probe, i) => {
    const prepared = await prepareTurn(deps, ctx, {
      mode: "chat",
      speaker: EVALUATOR,
      history: input.turns,
      message: probe.message,
      vector: embedded.queries[i] ?? null,
      relevance: embedded.relevance[i] ?? [],
      touch: false,
      options: { facets: 2, memories: 8, tokenBudget: 4000 },
    });
    const { run, usage } = await runProbe(deps, {
      probe,
      input: prepared.prompt.input as Parameters<typeof runProbe>[1]["input"],
      persona,
      ranking: prepared.selection.ranking,
    }, { condition: input.condition, metrics, attribution });
    agentUsage.push(usage);
    return run;
  });
  const judged = await judgeRuns(deps, runs, { metrics, attribution });
  const table = calibrationTable(input.calibration);
  const scores = aggregate(judged.items, table);
  return {
    condition: input.condition,
    metrics: scores,
    average: averageOf(scores),
    probes: runs.map((run, i) => ({
      ability: run.probe.ability,
      message: run.probe.message,
      answer: run.answer,
      variants: {
        ...(run.anonymised ? { anonymised: run.anonymised.text } : {}),
        ...(run.contraryFacet !== undefined ? { contraryFacet: run.contraryFacet } : {}),
        ...(run.noFacets !== undefined ? { noFacets: run.noFacets } : {}),
      },
      scores: Object.fromEntries(
        judged.items.filter((item) => item.run === i).map((item) => [item.metric, item.score]),
      ),
    })),
    judge: judgeLabel(deps.judge),
    calibration: Object.fromEntries(metrics.map((m) => [m, table[m]])),
    usage: { agent: addUsage(...agentUsage), judge: judged.usage },
  };
}
