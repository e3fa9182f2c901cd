/**
 * @module `deno task world`: exports a world of the configured store to NDJSON, or imports one
 * into it, so a world moves from the embedded store to Upstash (or back), is backed up, or is
 * forked. Wiring only: the archive is `exportWorld` / `importWorld` in `src/archive/`.
 */
import { parseArgs } from "node:util";
import { openKvStorage } from "../lib/kv/kv_storage.ts";
import { cliServices } from "./_cli_deps.ts";
import { ndjsonLines, writeLines } from "../lib/ndjson_lines.ts";
import { exportWorld, importWorld } from "../src/app/mod.ts";
import { SimulacraError, WorldId } from "../src/domain/mod.ts";

/** Usage text for `--help`. */
export const WORLD_USAGE = `Exports or imports a world of the configured store.

Usage: deno task world export <world> [--events] [--out FILE]   (default: stdout)
       deno task world import <FILE|-> [--id NEW_ID] [--reembed]

  export   writes the world as NDJSON: agents, memories with embeddings, plans, usage
  import   reads an export into the store, all or nothing; --id imports it under another
           id (a fork); --reembed embeds the memories again when the export was made with
           another embedder
  --events with export: include the event log

The store is the one \`deno task start\` uses (SIMULACRA_DATA_DIR, or Upstash when the
UPSTASH_* variables are set), so to move a world from the embedded store to Upstash:
  deno task world export town > town.ndjson
  UPSTASH_REDIS_REST_URL=… (all four) deno task world import town.ndjson
Stop the server first when it uses the embedded store (one process per data file).`;

/** Where the command reads and writes; the entry passes the process's streams. */
export interface WorldIo {
  /** Export bytes (stdout unless --out). */
  stdout: WritableStream<Uint8Array>;
  /** Import bytes for `-`. */
  stdin: ReadableStream<Uint8Array>;
  /** Messages (stderr). */
  err(text: string): void;
  openRead(path: string): Promise<ReadableStream<Uint8Array>>;
  openWrite(path: string): Promise<WritableStream<Uint8Array>>;
}

/** Runs the command; returns the exit code: 0 done, 1 failed, 2 bad arguments. */
export async function worldCommand(
  args: readonly string[],
  env: Record<string, string>,
  io: WorldIo,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        events: { type: "boolean" },
        out: { type: "string" },
        id: { type: "string" },
        reembed: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${WORLD_USAGE}\n`);
    return 2;
  }
  const [action, target] = parsed.positionals;
  if (parsed.values.help || action === undefined) {
    io.err(`${WORLD_USAGE}\n`);
    return parsed.values.help ? 0 : 2;
  }
  if ((action !== "export" && action !== "import") || target === undefined) {
    io.err(`Cannot run "world ${parsed.positionals.join(" ")}": see the usage\n\n${WORLD_USAGE}\n`);
    return 2;
  }
  const services = await cliServices(env, (text) => io.err(text), {
    openEmbedded: (dataDir, dimensions) =>
      openKvStorage({ path: `${dataDir}/simulacra.kv`, dimensions }),
  });
  if (services === null) return 1;
  const { deps } = services;
  try {
    if (action === "export") {
      const worldId = WorldId.safeParse(target);
      if (!worldId.success) {
        io.err(`Cannot export "${target}": it is not a world id\n`);
        return 2;
      }
      const out = parsed.values.out ? await io.openWrite(parsed.values.out) : io.stdout;
      const lines = await writeLines(
        exportWorld(deps, worldId.data, { events: parsed.values.events }),
        out,
      );
      io.err(`Exported world "${target}": ${lines} lines\n`);
    } else {
      const id = parsed.values.id === undefined ? undefined : WorldId.safeParse(parsed.values.id);
      if (id && !id.success) {
        io.err(`Cannot import as "${parsed.values.id}": it is not a world id\n`);
        return 2;
      }
      const input = target === "-" ? io.stdin : await io.openRead(target);
      const result = await importWorld(deps, ndjsonLines(input), {
        id: id?.data,
        reembed: parsed.values.reembed,
      });
      const c = result.counts;
      io.err(
        `Imported world "${result.world.id}": ${c.agents} agents, ${c.memories} memories, ${c.documents} documents, ${c.events} events${
          result.reembedded ? `, ${result.reembedded} memories embedded again` : ""
        }\n`,
      );
    }
    return 0;
  } catch (err) {
    if (!(err instanceof SimulacraError)) throw err;
    io.err(`${err.message}\n`);
    return 1;
  } finally {
    await deps.storage.close();
  }
}

if (import.meta.main) {
  const code = await worldCommand(Deno.args, Deno.env.toObject(), {
    stdout: Deno.stdout.writable,
    stdin: Deno.stdin.readable,
    err: (text) => {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length;) at += Deno.stderr.writeSync(bytes.subarray(at));
    },
    openRead: async (path) => (await Deno.open(path, { read: true })).readable,
    openWrite: async (path) =>
      (await Deno.open(path, { write: true, create: true, truncate: true })).writable,
  });
  Deno.exit(code);
}
