/**
 * @module The emergent measures of any world by interviewing its agents, as Generative Agents
 * §7 measured them: who has heard of each fact (diffusion), whom each says it knows (network
 * density), who says it was at an event (coordination). Interview mode: no memory is written.
 */
import {
  addUsage,
  type AgentScope,
  type JudgeKnowledgeInput,
  mutualDensity,
  type Usage,
  type WorldId,
} from "../../domain/mod.ts";
import { type Deps, type JudgeDeps, judgeLabel } from "../../ports/mod.ts";
import { judgeKnowledge } from "../../mind/mod.ts";
import { listAgents, loadPersonaRecord } from "../agents/mod.ts";
import { getWorld } from "../world/mod.ts";
import { mapBounded } from "../engine/mod.ts";
import { askInCharacter } from "../persona/mod.ts";
import { WorldMetricsInput, type WorldMetricsResult } from "./world_metrics_schema.ts";

/** Agents interviewed at once (each answers its questions four at a time). */
const AGENTS_AT_ONCE = 2;
/** Judge calls at once. */
const JUDGE_CONCURRENCY = 4;

/** `2023-02-14T17:00:00` → "5:00 pm on 2023-02-14". */
function spoken(time: string): string {
  const [date, clock] = time.split("T");
  const [h, m] = clock.split(":").map(Number);
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, "0")} ${
    h < 12 ? "am" : "pm"
  } on ${date}`;
}

/** One question to every agent and how the judge reads its answer. */
interface Asked {
  measure: "fact" | "event" | "people";
  index: number;
  question: (self: string) => string;
  target: (self: string) => JudgeKnowledgeInput["target"];
}

/**
 * Interviews every agent of the world with the measures' questions and has the judge read each
 * answer; returns the numbers with each answer as evidence. The agents' calls count as theirs;
 * the judge's are reported apart.
 * @throws `world_not_found`, `model_*` (the judge's naming the measure), `store_unavailable`.
 */
export async function measureWorld(
  deps: Pick<Deps, "storage" | "model" | "embedder"> & JudgeDeps,
  worldId: WorldId,
  body: WorldMetricsInput,
): Promise<WorldMetricsResult> {
  const input = WorldMetricsInput.parse(body);
  const world = await getWorld(deps, worldId);
  const agents = await listAgents(deps, worldId);
  const names = agents.map((a) => a.name);
  const asked: Asked[] = [
    ...input.facts.map((fact, index): Asked => ({
      measure: "fact",
      index,
      question: () => `Have you heard anything about this: ${fact}? What do you know about it?`,
      target: () => ({ kind: "fact", fact }),
    })),
    ...(input.event
      ? [{
        measure: "event" as const,
        index: 0,
        question: () =>
          `Were you at ${input.event!.place} between ${spoken(input.event!.from)} and ${
            spoken(input.event!.to)
          }? What did you do there?`,
        target: () => ({ kind: "event" as const, ...input.event! }),
      }]
      : []),
    // As the paper did: each agent is asked about each other agent, one question each.
    ...names.map((other, index): Asked => ({
      measure: "people",
      index,
      question: () => `Do you know ${other}?`,
      target: () => ({ kind: "people", candidates: [other] }),
    })),
  ];
  const agentUsage: Usage[] = [];
  const interviews = await mapBounded(agents, AGENTS_AT_ONCE, async (agent) => {
    const scope: AgentScope = { worldId, agentId: agent.id };
    const record = await loadPersonaRecord(deps, scope);
    const base = { world, agent, record, at: world.clock.now, ablation: "full" as const };
    const mine = asked.filter((a) => !(a.measure === "people" && names[a.index] === agent.name));
    const questions = mine.map((a) => a.question(agent.name));
    const { answers, usage } = await askInCharacter(deps, base, questions);
    agentUsage.push(usage);
    return { agent, asked: mine, questions, answers: answers.map((a) => a.reply) };
  });
  const tasks = interviews.flatMap((iv) =>
    iv.asked.map((a, q) => ({ iv, a, question: iv.questions[q], answer: iv.answers[q] }))
  );
  const judgeUsage: Usage[] = [];
  const read = await mapBounded(tasks, JUDGE_CONCURRENCY, async (t) => {
    const target = t.a.target(t.iv.agent.name);
    const { value, usage } = await judgeKnowledge(deps, {
      agent: t.iv.agent.name,
      question: t.question,
      answer: t.answer,
      target,
    }, { worldId, agentId: t.iv.agent.id, operation: `judge.metrics.${t.a.measure}` });
    judgeUsage.push(usage);
    return {
      measure: t.a.measure,
      index: t.a.index,
      agentId: t.iv.agent.id,
      evidence: {
        agent: t.iv.agent.name,
        question: t.question,
        answer: t.answer,
        knows: value.knows,
        reason: value.reason,
      },
      // Only the people asked about count (a judge may list others the answer mentions).
      named: target.kind === "people"
        ? value.names.filter((n) => target.candidates.includes(n))
        : [],
    };
  });
  const of = (measure: string, index = 0) =>
    read.filter((r) => r.measure === measure && r.index === index);
  const share = (
    n: number,
  ) => (agents.length === 0 ? 0 : Math.round((n / agents.length) * 1000) / 1000);
  const idOf = new Map(agents.map((a) => [a.name, a.id]));
  const people = read.filter((r) => r.measure === "people");
  const knows = new Map(agents.map((a) => [a.id, new Set<string>()]));
  for (const r of people) for (const n of r.named) knows.get(r.agentId)!.add(idOf.get(n)!);
  const density = mutualDensity(agents.map((a) => a.id), knows);
  return {
    at: world.clock.now,
    agents: agents.length,
    diffusion: input.facts.map((fact, i) => {
      const rows = of("fact", i);
      const knows = rows.filter((r) => r.evidence.knows).map((r) => r.evidence.agent);
      return { fact, knows, share: share(knows.length), evidence: rows.map((r) => r.evidence) };
    }),
    networkDensity: {
      ...density,
      evidence: people.map((r) => ({ ...r.evidence, named: r.named })),
    },
    attendance: input.event
      ? {
        ...input.event,
        attended: of("event").filter((r) => r.evidence.knows).map((r) => r.evidence.agent),
        evidence: of("event").map((r) => r.evidence),
      }
      : null,
    judge: judgeLabel(deps.judge),
    usage: { agent: addUsage(...agentUsage), judge: addUsage(...judgeUsage) },
  };
}
