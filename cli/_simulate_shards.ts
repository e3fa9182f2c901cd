/**
 * @module One run's towns split across several processes, each with its own store and queue
 * consumer, so the run uses more than one core (a process runs its JavaScript on one thread).
 * The towns are independent worlds, so a share of them is a complete run of its own; the
 * parent merges the shares' summaries. Each child prints its run as the last line of stdout.
 */
import { ndjsonLines } from "../lib/ndjson_lines.ts";
import type { TownsRun } from "./_simulate_towns.ts";

/** The towns one process runs: `towns` of them, numbered from `firstTown`. */
export interface Shard {
  firstTown: number;
  towns: number;
}

/** Splits `towns` over `processes` as evenly as possible (never an empty share). */
export function shardsOf(towns: number, processes: number): Shard[] {
  const count = Math.min(towns, processes);
  const shards: Shard[] = [];
  let next = 1;
  for (let i = 0; i < count; i++) {
    const share = Math.floor(towns / count) + (i < towns % count ? 1 : 0);
    shards.push({ firstTown: next, towns: share });
    next += share;
  }
  return shards;
}

/** A child's run, as it printed it, and its peak resident memory. */
export type ShardRun = TownsRun & { peakRssMb: number };

/**
 * Runs one child per shard (`deno` with `args(shard)`, in the repository root) at once,
 * forwarding each child's stderr line by line with the shard's towns as a prefix.
 * @throws {Error} when a child exits with an error or prints no run.
 */
export async function runShards(
  shards: readonly Shard[],
  options: { args: (shard: Shard) => string[]; err: (text: string) => void },
): Promise<ShardRun[]> {
  const root = new URL("../", import.meta.url).pathname;
  return await Promise.all(shards.map(async (shard) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: options.args(shard),
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const label = `[towns ${shard.firstTown}-${shard.firstTown + shard.towns - 1}] `;
    let last = "";
    await Promise.all([
      (async () => {
        for await (const line of ndjsonLines(child.stdout)) if (line.trim() !== "") last = line;
      })(),
      (async () => {
        for await (const line of ndjsonLines(child.stderr)) options.err(`${label}${line}\n`);
      })(),
    ]);
    const status = await child.status;
    if (!status.success || !last.startsWith("{")) {
      throw new Error(`The process running ${label.trim()} failed (exit code ${status.code})`);
    }
    return JSON.parse(last) as ShardRun;
  }));
}
