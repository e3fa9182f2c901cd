/**
 * @module Import: a world archive read line by line into the store, all or nothing.
 *
 * Every line is checked before anything it implies is written, and nothing is visible before
 * the whole file was read and checked: the world's own document, which every read goes through,
 * is written last (the commit point). Records are staged under the new world id as they stream
 * in, so memory stays flat; a bad line, a truncated file or a failed write removes everything
 * staged so far. Event claims, usage and the event log (which cannot be removed one by one) are
 * written only once the whole file checked out. The import holds the world id's creation lease
 * throughout (`worldCreationKey`), so nobody creates a world of the same id meanwhile: such a
 * creation fails with `conflict`, as does an import of an id being created.
 */
import { z } from "zod";
import {
  Agent,
  type AgentScope,
  type ArchiveCounts,
  BodyLine,
  ConflictError,
  type HeaderLine,
  type MemoryRecord,
  type UsageLine,
  VectorArena,
  wellFormedMemoryLine,
  type World,
  WORLD_CREATION_TTL_MS,
  worldCreationKey,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps, NewEvent } from "../../ports/mod.ts";
import { withLease } from "../engine/mod.ts";
import { worldKey } from "../world/mod.ts";
import { restoreUsage } from "./restore_usage.ts";
import { Staging } from "./_import_staging.ts";
import {
  BATCH,
  checkCounts,
  checkHeader,
  describe,
  lineError,
  lineVector,
  mismatched,
  parseBodyText,
  parseLine,
  renameWorld,
} from "./_import_lines.ts";
import { isWorldCollection, worldDocumentKey } from "./world_documents.ts";

/** Options of {@linkcode importWorld}. */
export interface ImportOptions {
  /** Import under this id instead of the archived one: a fork. @default the archived id */
  id?: WorldId;
  /** Embed every memory again when the archive was made with another embedder. @default false */
  reembed?: boolean;
}

/** What an import did. */
export const ImportResult = z
  .object({
    world: z.object({ id: z.string(), name: z.string() }).loose(),
    counts: z.object({
      agents: z.number(),
      documents: z.number(),
      memories: z.number(),
      events: z.number(),
    }),
    reembedded: z.number().int().meta({
      description: "Memories embedded again because the archive used another embedder",
    }),
  })
  .meta({ id: "ImportResult" });
export type ImportResult = z.infer<typeof ImportResult>;

/** Events appended per call. */
const EVENT_BATCH = 500;

/**
 * Imports an archive (its lines, without newlines). Refuses, writing nothing: a malformed,
 * truncated or other-version file (`invalid_request`, `details.line`), as is a line with text the
 * JSON API refuses (control characters: `details.path`), an embedding no store can use (zero
 * or not finite) or a header whose counts are not the file's; an existing world id
 * (`conflict`), an archive embedded with another embedder unless `reembed` (`unprocessable`).
 *
 * @throws as above; `store_unavailable` or `model_*` while writing (nothing left behind).
 */
export async function importWorld(
  deps: Pick<Deps, "storage" | "embedder" | "sleep">,
  lines: AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw lineError(1, "the file is empty");
  const header = checkHeader(deps, parseLine(first.value, 1), options);
  const targetId = options.id ?? header.worldId;
  return await withLease(deps, {
    key: worldCreationKey(targetId),
    ttlMs: WORLD_CREATION_TTL_MS,
    waitMs: 0,
    busy: () =>
      new ConflictError(
        `Cannot import world "${targetId}": a world with this id is being created or imported right now: retry, or import with ?id=<new id>`,
      ),
  }, async (held) => {
    // Under the lease nobody creates this world, so the check holds until the commit.
    if (await deps.storage.documents.get(worldKey(targetId))) {
      throw new ConflictError(
        `Cannot import world "${targetId}": a world with this id exists: import with ?id=<new id> to fork it, or delete it first`,
      );
    }
    const staging = new Staging(deps, targetId, held.lease);
    const body = { [Symbol.asyncIterator]: () => iterator };
    try {
      return await readBody(deps, body, { header, targetId, options, staging });
    } catch (err) {
      await staging.rollback();
      throw err;
    }
  });
}

/** The lines after the header (the first is line 2), staged and then committed. */
async function readBody(
  deps: Pick<Deps, "storage" | "embedder">,
  lines: AsyncIterable<string>,
  { header, targetId, options, staging }: {
    header: HeaderLine;
    targetId: WorldId;
    options: ImportOptions;
    staging: Staging;
  },
): Promise<ImportResult> {
  let n = 1;
  let world: World | null = null;
  let usage: UsageLine | null = null;
  let end: ArchiveCounts | null = null;
  const seen: ArchiveCounts = { agents: 0, documents: 0, memories: 0, events: 0 };
  const agents = new Set<string>();
  const memoryIds = new Set<string>();
  const arena = new VectorArena();
  const events: NewEvent[] = [];
  let reembedded = 0;
  let batch:
    | { scope: AgentScope; records: MemoryRecord[]; vectors: (Float32Array | null)[] }
    | null = null;
  // The batch being written while the next one is read and checked: writing and reading
  // overlap, one batch at a time (the store sees the batches in order).
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    await writing;
    if (batch === null) return;
    const { scope, records, vectors } = batch;
    batch = null;
    writing = staging.memories(scope, records, vectors).then((n) => {
      reembedded += n;
    });
    writing.catch(() => {}); // seen by the next flush, or awaited below before a rollback
  };
  try {
    return await readLines();
  } catch (err) {
    await writing.catch(() => {}); // nothing may land after the rollback
    throw err;
  }

  async function readLines(): Promise<ImportResult> {
    for await (const text of lines) {
      n++;
      if (end !== null) {
        if (text.trim() === "") continue;
        throw lineError(n, "there is a line after the end line");
      }
      const { json, vector: decoded } = parseBodyText(text, {
        n,
        dimensions: header.embedder.dimensions,
        arena,
      });
      const line = wellFormedMemoryLine(json) ?? bodyLine(json, n);
      if (world === null && line.type !== "world") {
        throw lineError(n, "the world line must be second");
      }
      const rewrite = <T>(value: T): T => renameWorld(value, header.worldId, targetId);
      switch (line.type) {
        case "world":
          if (world !== null) throw lineError(n, "a second world line");
          world = rewrite({ ...line.world, id: targetId }) as World;
          break;
        case "document": {
          if (!isWorldCollection(line.collection, line.agentId !== undefined)) {
            throw lineError(n, `"${line.collection}" is not a collection a world owns`);
          }
          if (line.agentId !== undefined && !agents.has(line.agentId)) {
            throw lineError(n, `the document belongs to agent "${line.agentId}", not in the file`);
          }
          let value = rewrite(line.value);
          if (line.collection === "agents") {
            const agent = Agent.safeParse(value);
            if (!agent.success || agent.data.id !== line.id) {
              throw lineError(
                n,
                `the agent is not valid: ${agent.error ? describe(agent.error) : "its id differs"}`,
              );
            }
            value = agent.data;
            agents.add(line.id);
            staging.agent(line.id);
            seen.agents++;
          }
          seen.documents++;
          await staging.document(worldDocumentKey(targetId, line), value);
          break;
        }
        case "memory": {
          const memory = rewrite(line.memory);
          if (!agents.has(memory.agentId)) {
            throw lineError(n, `the memory belongs to agent "${memory.agentId}", not in the file`);
          }
          const key = `${memory.agentId}/${memory.id}`;
          if (memoryIds.has(key)) throw lineError(n, `memory "${memory.id}" appears twice`);
          memoryIds.add(key);
          const reembed = options.reembed === true && mismatched(deps, header);
          const vector = lineVector(line.embedding, {
            n,
            dimensions: header.embedder.dimensions,
            kept: !reembed,
            decoded,
          });
          seen.memories++;
          if (
            batch !== null &&
            (batch.scope.agentId !== memory.agentId || batch.records.length >= BATCH)
          ) {
            await flush();
          }
          batch ??= {
            scope: { worldId: targetId, agentId: memory.agentId },
            records: [],
            vectors: [],
          };
          batch.records.push(memory);
          batch.vectors.push(reembed ? null : vector);
          break;
        }
        case "usage":
          usage = line;
          break;
        case "event": {
          seen.events++;
          const { seq: _seq, ...event } = rewrite(line.event);
          events.push(event as NewEvent);
          break;
        }
        case "end":
          end = line.counts;
          break;
      }
      checkCounts(header.counts, seen, { final: false });
    }
    if (end === null) {
      throw lineError(n + 1, "the file ends without its end line: it is truncated");
    }
    for (const key of Object.keys(seen) as (keyof ArchiveCounts)[]) {
      if (seen[key] !== end[key]) {
        throw lineError(
          n,
          `the end line counts ${end[key]} ${key} but the file holds ${seen[key]}`,
        );
      }
    }
    checkCounts(header.counts, seen, { final: true });
    await flush();
    await writing;
    await staging.claims(targetId);
    if (usage !== null) await restoreUsage(deps, targetId, usage);
    for (let i = 0; i < events.length; i += EVENT_BATCH) {
      await deps.storage.events.append(targetId, events.slice(i, i + EVENT_BATCH));
    }
    const created = await staging.commit(world!);
    return { world: created, counts: seen, reembedded };
  }
}

/** A line after the header, by the schema (a memory line {@linkcode wellFormedMemoryLine} took is the same). */
function bodyLine(json: unknown, n: number): BodyLine {
  const parsed = BodyLine.safeParse(json);
  if (!parsed.success) throw lineError(n, describe(parsed.error));
  return parsed.data;
}
