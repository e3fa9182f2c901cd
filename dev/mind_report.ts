/**
 * @module `deno task mind:report FILE`: how the minds of a saved world hold up over time, read from
 * an export (`deno task simulate --save FILE` or `deno task world export`). Prints what issue 21's
 * numbers are measured by: summaries that name an occupation, waking plan items longer than six
 * hours, distinct reflections, live / archived / merged memories per agent. Dev tooling: it reads
 * the NDJSON as text and knows only the export's documented shape.
 */
import { ndjsonLines } from "../lib/ndjson_lines.ts";

interface Counts {
  memories: number;
  live: number;
  archived: number;
  merged: number;
  superseded: number;
  observations: number;
  reflections: string[];
}

interface PlanItem {
  start: string;
  end: string;
  description: string;
  location?: string;
}

/** A waking plan item: sleep and going to bed do not count. */
const SLEEP = /\b(sleep|asleep|bed|go to bed|night's rest)\b/i;
const LONG_HOURS = 6;

/** Prints a line of the report. */
function say(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

function hoursBetween(start: string, end: string): number {
  return (Date.parse(end + "Z") - Date.parse(start + "Z")) / 3_600_000;
}

function newCounts(): Counts {
  return {
    memories: 0,
    live: 0,
    archived: 0,
    merged: 0,
    superseded: 0,
    observations: 0,
    reflections: [],
  };
}

async function* records(path: string): AsyncGenerator<Record<string, unknown>> {
  const file = await Deno.open(path);
  for await (const line of ndjsonLines(file.readable, { maxLineChars: 64 * 1024 * 1024 })) {
    if (line.trim()) yield JSON.parse(line);
  }
}

function percent(n: number, of: number): string {
  return of === 0 ? "-" : `${Math.round((100 * n) / of)}%`;
}

async function main(path: string | undefined): Promise<number> {
  if (!path) {
    say(
      "Usage: deno task mind:report FILE   (a world export, e.g. from simulate --save)",
    );
    return 2;
  }
  const agents = new Map<string, string>();
  const byAgent = new Map<string, Counts>();
  const summaries = new Map<string, { occupation?: string; core?: string }>();
  const longByDay = new Map<string, string[]>();
  const splitPlaces = new Map<string, number>();
  for await (const rec of records(path)) {
    if (rec.type === "document") {
      const { collection, id, value } = rec as {
        collection: string;
        id: string;
        value: Record<string, unknown>;
      };
      if (collection === "agents") agents.set(id, String(value.name));
      if (collection === "summaries") summaries.set(id, value as { occupation?: string });
      if (collection === "plans") {
        const date = String(value.date);
        const items = (value.items ?? []) as PlanItem[];
        const long = items.filter((i) =>
          !SLEEP.test(i.description) && hoursBetween(i.start, i.end) > LONG_HOURS
        );
        if (long.length > 0) {
          longByDay.set(date, [...(longByDay.get(date) ?? []), String(value.agentId)]);
        }
        // The same activity split around an interruption at two places (lunch at two cafes).
        for (let i = 2; i < items.length; i++) {
          const [a, b] = [items[i - 2], items[i]];
          if (a.description === b.description && a.location !== b.location) {
            splitPlaces.set(date, (splitPlaces.get(date) ?? 0) + 1);
          }
        }
      }
    }
    if (rec.type === "memory") {
      const m = rec.memory as Record<string, unknown>;
      const agentId = String(m.agentId);
      const c = byAgent.get(agentId) ?? newCounts();
      byAgent.set(agentId, c);
      c.memories++;
      if (m.mergedInto) c.merged++;
      else if (m.archivedAt) c.archived++;
      else c.live++;
      if (m.supersededBy) c.superseded++;
      if (m.kind === "observation") c.observations++;
      if (m.kind === "reflection") c.reflections.push(String(m.description));
    }
  }
  const n = agents.size;
  const named =
    [...summaries.values()].filter((s) =>
      s.occupation && !/not known|unknown|little is known/i.test(s.occupation)
    ).length;
  say(`World: ${path}, ${n} agents`);
  say(`Identity: summaries naming an occupation: ${named} of ${summaries.size}`);
  const days = [...new Set([...longByDay.keys()])].sort();
  const planDates = days.length === 0 ? "none" : days
    .map((d) => `${d}: ${longByDay.get(d)!.length}`)
    .join(", ");
  say(
    `Plans: agents with a waking item over ${LONG_HOURS} h, by day: ${planDates}`,
  );
  const splits = [...splitPlaces.values()].reduce((a, b) => a + b, 0);
  say(`Plans: an activity split across two places around an interruption: ${splits}`);
  let reflections = 0;
  let distinct = 0;
  let worstDistinct = 1;
  let live = 0;
  let maxLive = 0;
  let total = 0;
  let archived = 0;
  let merged = 0;
  let superseded = 0;
  let observations = 0;
  for (const c of byAgent.values()) {
    const unique = new Set(c.reflections).size;
    reflections += c.reflections.length;
    distinct += unique;
    if (c.reflections.length > 0) {
      worstDistinct = Math.min(worstDistinct, unique / c.reflections.length);
    }
    live += c.live;
    maxLive = Math.max(maxLive, c.live);
    total += c.memories;
    archived += c.archived;
    merged += c.merged;
    superseded += c.superseded;
    observations += c.observations;
  }
  say(
    `Reflections: ${reflections} stored, ${distinct} distinct per agent (${
      percent(distinct, reflections)
    }; worst agent ${percent(Math.round(worstDistinct * 100), 100)})`,
  );
  say(
    `Memories: ${total} in all (${percent(observations, total)} observations); live ${live} (${
      Math.round(live / Math.max(1, n))
    } per agent, at most ${maxLive}); archived ${archived}; merged ${merged}; superseded ${superseded}`,
  );
  say(
    `Accounting: live + archived + merged = ${live + archived + merged} of ${total} stored`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args[0]));
