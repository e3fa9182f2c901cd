/** @module What `deno task simulate` prints: the progress line and the human summary. */
import type { SimulationProgress, SimulationSummary } from "../src/eval/mod.ts";
import type { TownsRun } from "./_simulate_towns.ts";

const BAR = 20;

/** A whole number with thousands separators: 12,345. */
function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** A token count in short form: 950, 12.3k, 4.56M. */
function tokens(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${(n / 1_000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

function span(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h}h` : `${h}h${String(m).padStart(2, "0")}`;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/**
 * One progress line, e.g.
 * `[########------------] 40% 2023-02-13 16:40 · 9h40 of 24h · 1,234 events · 567 calls · 1.2M tokens · 12s`.
 */
export function progressLine(p: SimulationProgress, wallSeconds: number): string {
  const done = p.minutesTotal === 0 ? 1 : p.minutesDone / p.minutesTotal;
  const filled = Math.round(done * BAR);
  const errors = p.stepErrors > 0 ? ` · ${count(p.stepErrors)} step errors` : "";
  return `[${"#".repeat(filled)}${"-".repeat(BAR - filled)}] ${Math.floor(done * 100)}% ${
    p.now.slice(0, 16).replace("T", " ")
  } · ${span(p.minutesDone)} of ${span(p.minutesTotal)} · ${count(p.events)} events · ${
    count(p.usage.calls)
  } calls · ${tokens(p.usage.promptTokens + p.usage.completionTokens)} tokens${errors} · ${
    Math.round(wallSeconds)
  }s`;
}

/** The measures by interview, beside the text-matching ones; none when not measured. */
function interviewLines(s: SimulationSummary): string[] {
  const i = s.byInterview;
  if (i === undefined) return [];
  const share = (f: { share: number; knows: string[] }) =>
    `${percent(f.share)} (${f.knows.length} of ${s.agents})`;
  return [
    `By interview (each agent asked; ${i.judge}):`,
    `  Valentine's Day party: ${share(i.diffusion.party)}; mayoral candidacy: ${
      share(i.diffusion.candidacy)
    }`,
    `  Network density: ${i.networkDensity}; party attendance: ${
      i.partyAttendance === null
        ? "not asked (the run did not reach it)"
        : `${i.partyAttendance.count} say they came`
    }`,
    `  Interview cost: ${count(i.usage.agent.calls)} agent calls, ${
      count(i.usage.judge.calls)
    } judge calls`,
  ];
}

/** The summary as a few lines of text. */
export function summaryText(s: SimulationSummary): string {
  const when = (t: string) => t.slice(0, 16).replace("T", " ");
  const ops = Object.entries(s.byOperation)
    .map(([op, u]) => `${op} ${count(u.calls)} (${tokens(u.promptTokens + u.completionTokens)})`)
    .join(", ");
  const spread = (name: string, f: SimulationSummary["diffusion"]["party"]) =>
    `  ${name}: ${percent(f.shareBefore)} → ${percent(f.share)} (${f.count} of ${s.agents}: ${
      f.knows.join(", ")
    })`;
  const party = s.partyAttendance === null
    ? "not measured (the run did not reach Feb 14, 17:00-19:00)"
    : `${s.partyAttendance.count} came, ${s.partyAttendance.informed} of them had heard of it${
      s.partyAttendance.count > 0 ? ` (${s.partyAttendance.attendees.join(", ")})` : ""
    }; the host was ${s.partyAttendance.hostPresent ? "there" : "not there"}`;
  return [
    `Simulated ${s.template}: ${s.agents} agents, ${s.gameHours} game hours (${
      when(s.startTime)
    } → ${when(s.endTime)}) in ${
      count(s.ticks)
    } ticks of ${s.minutesPerTick} minutes, concurrency ${s.concurrency}, ${s.wallSeconds} s wall time`,
    `Model: ${s.model}${s.seed === null ? "" : `, seed ${s.seed}`}`,
    `Model calls: ${count(s.modelCalls)}, tokens: ${count(s.promptTokens)} prompt + ${
      count(s.completionTokens)
    } completion (setup: ${count(s.setup.calls)} calls)`,
    ...s.cachedPromptTokens > 0 ? [cacheLine(s)] : [],
    `Per agent-day: ${s.callsPerAgentDay} calls, ${
      count(s.tokensPerAgentDay)
    } tokens (budget ≤ ${s.budget.callsPerAgentDay} and ≤ ${count(s.budget.tokensPerAgentDay)}: ${
      s.budget.met ? "met" : "NOT met"
    })`,
    `By operation: ${ops === "" ? "none" : ops}`,
    `Events: ${count(s.events)}; failed agent steps: ${count(s.stepErrors)}${
      s.stepErrorExamples.length > 0 ? ` (e.g. ${s.stepErrorExamples.join(" | ")})` : ""
    }`,
    "Information diffusion (who has a memory of it):",
    spread("Valentine's Day party", s.diffusion.party),
    spread("mayoral candidacy", s.diffusion.candidacy),
    `Relationship network density: ${s.networkDensity.before} → ${s.networkDensity.after} (${s.networkDensity.afterWithoutSightings} not counting pairs who only saw each other)`,
    `Party attendance: ${party}`,
    ...interviewLines(s),
    "",
    "What the terms mean:",
    `  Budget: model calls and tokens per agent per game day; the goal is at most ${s.budget.callsPerAgentDay} calls and ${
      count(s.budget.tokensPerAgentDay)
    } tokens.`,
    "  Diffusion: the share of agents with a memory of the news, checked in their memory streams (before → after).",
    "  Density: the share of agent pairs in which one remembers the other (0 none, 1 everyone knows everyone).",
    "  Sightings: plain observations of someone nearby; density without them counts only talks, plans and reflections.",
    `  Attendance: agents in the party's area during it (Feb 14, 17:00-19:00); "had heard of it" means a memory of the party.`,
    ...(s.seed === null
      ? []
      : [`  Seed ${s.seed}: the same seed replays this run exactly, at any concurrency.`]),
  ].join("\n");
}

/**
 * A run of several towns: one line per town, then the totals. `peakRssMb` has one peak per
 * process the towns ran in.
 */
export function townsText(run: TownsRun, peakRssMb: readonly number[]): string {
  const t = run.total;
  const towns = run.towns.map((s, i) =>
    `  town ${i + 1}: ${s.agents} agents, ${count(s.ticks)} ticks, ${
      count(s.modelCalls)
    } calls, ${s.callsPerAgentDay} calls and ${count(s.tokensPerAgentDay)} tokens per agent-day, ${
      count(s.stepErrors)
    } failed steps, party known by ${
      percent(s.diffusion.party.share)
    }, density ${s.networkDensity.after}`
  );
  return [
    `Simulated ${t.towns} town${t.towns === 1 ? "" : "s"} (${
      count(t.agents)
    } agents) for ${t.gameHours} game hours through Deno KV queues in ${t.wallSeconds} s wall time (${
      (t.wallSeconds / 60).toFixed(1)
    } min); ${memory(peakRssMb)}`,
    ...towns,
    `Model calls: ${count(t.modelCalls)}, tokens: ${count(t.promptTokens)} prompt + ${
      count(t.completionTokens)
    } completion`,
    `Per agent-day: ${t.callsPerAgentDay} calls, ${
      count(t.tokensPerAgentDay)
    } tokens (budget ≤ ${t.budget.callsPerAgentDay} and ≤ ${count(t.budget.tokensPerAgentDay)}: ${
      t.budget.met ? "met" : "NOT met"
    })`,
    `Agent steps: ${count(t.steps)}, failed: ${count(t.stepErrors)}${
      t.stepErrorExamples.length > 0 ? ` (e.g. ${t.stepErrorExamples.join(" | ")})` : ""
    }; ticks asked again after a busy answer or a lost lease: ${count(t.busyRetries)}; events: ${
      count(t.events)
    }`,
  ].join("\n");
}

function memory(peaks: readonly number[]): string {
  if (peaks.length === 1) return `peak RSS ${count(peaks[0])} MB`;
  const sum = peaks.reduce((a, b) => a + b, 0);
  return `peak RSS ${count(sum)} MB over ${peaks.length} processes (${
    peaks.map(count).join(" + ")
  })`;
}

/** How much of the prompts a provider's prompt cache served (a prefix repeated from an earlier call). */
function cacheLine(s: { promptTokens: number; cachedPromptTokens: number }): string {
  const share = s.promptTokens === 0
    ? 0
    : Math.round((100 * s.cachedPromptTokens) / s.promptTokens);
  return `Cached prompt tokens: ${count(s.cachedPromptTokens)} of ${
    count(s.promptTokens)
  } (${share}%, a prefix repeated from an earlier call)`;
}
