/**
 * @module Export: a world as an NDJSON archive, produced line by line so memory stays flat
 * however many memories the world holds (see `archive_format.ts` for the lines).
 */
import type { Deps } from "../../ports/mod.ts";
import {
  type AgentId,
  type AgentScope,
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  type ArchiveCounts,
  ConflictError,
  encodeVector,
  type HeaderLine,
  type MemoryRecord,
  VERSION,
  type WorldId,
} from "../../domain/mod.ts";
import { embedAgain } from "../memory/mod.ts";
import { getWorld } from "../world/mod.ts";
import { listAgents } from "../agents/mod.ts";
import { listWorldDocuments } from "./world_documents.ts";

/** Options of {@linkcode exportWorld}. */
export interface ExportOptions {
  /** Include the world's event log. @default false */
  events?: boolean;
}

/** Memories read (and vectors fetched) per page. */
const PAGE = 500;
/** Events read per page. */
const EVENT_PAGE = 1_000;

/**
 * The archive of a world, one line (JSON, no newline) at a time. The world is read as the lines
 * are produced, but only the records the header counts are written: memories and events stored
 * meanwhile wait for the next export, and the header's counts are the file's (import checks
 * them). A memory whose vector is missing is embedded again on the way out, so every memory
 * line has its embedding.
 *
 * @throws `world_not_found` before the first line; `store_unavailable` or `model_*` mid-stream,
 * and `conflict` at the end when counted memories or events were deleted meanwhile.
 */
export async function* exportWorld(
  deps: Pick<Deps, "storage" | "embedder">,
  worldId: WorldId,
  options: ExportOptions = {},
): AsyncGenerator<string> {
  const world = await getWorld(deps, worldId);
  const agents = await listAgents(deps, worldId);
  const agentIds = agents.map((a) => a.id as AgentId);
  const documents = await listWorldDocuments(deps, worldId, agentIds);
  const memoryCounts = await Promise.all(
    agentIds.map((agentId) => deps.storage.memories.count({ worldId, agentId }, { status: "all" })),
  );
  const log = options.events ? await countEvents(deps, worldId) : { count: 0, last: 0 };
  const counts: ArchiveCounts = {
    agents: agents.length,
    documents: documents.length,
    memories: memoryCounts.reduce((a, b) => a + b, 0),
    events: log.count,
  };
  const header: HeaderLine = {
    type: "header",
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    product: `simulacra ${VERSION}`,
    worldId,
    embedder: { model: deps.embedder.info.model, dimensions: deps.embedder.info.dimensions },
    counts,
  };
  yield JSON.stringify(header);
  yield JSON.stringify({ type: "world", world });

  const written: ArchiveCounts = { agents: 0, documents: 0, memories: 0, events: 0 };
  for (const { collection, agentId, doc } of documents) {
    if (collection === "agents") written.agents++;
    written.documents++;
    yield JSON.stringify({ type: "document", collection, agentId, id: doc.id, value: doc.value });
  }
  for (const [i, agentId] of agentIds.entries()) {
    // The memories counted above: one stored meanwhile waits for the next export.
    let left = memoryCounts[i];
    for await (const page of memoryPages(deps, { worldId, agentId })) {
      const counted = page.slice(0, left);
      left -= counted.length;
      const vectors = await vectorsOf(deps, { worldId, agentId }, counted);
      for (const memory of counted) {
        written.memories++;
        const embedding = encodeVector(vectors.get(memory.id)!);
        yield JSON.stringify({ type: "memory", memory, embedding });
      }
      if (left === 0) break;
    }
  }
  const usage = await deps.storage.usage.totals(worldId);
  yield JSON.stringify({ type: "usage", ...usage });
  for (let after = 0; after < log.last;) {
    const events = await deps.storage.events.read(worldId, after, EVENT_PAGE);
    for (const event of events) {
      if (event.seq > log.last) break;
      written.events++;
      yield JSON.stringify({ type: "event", event });
    }
    after = events.length < EVENT_PAGE ? log.last : events.at(-1)!.seq;
  }
  for (const key of Object.keys(counts) as (keyof ArchiveCounts)[]) {
    if (written[key] !== counts[key]) {
      // The header promised what was counted; a file whose header lies would not import.
      throw new ConflictError(
        `Cannot finish the export of world "${worldId}": ${
          counts[key] - written[key]
        } of its ${key} were deleted while it was exported: export it again`,
      );
    }
  }
  yield JSON.stringify({ type: "end", counts: written });
}

async function* memoryPages(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): AsyncGenerator<MemoryRecord[]> {
  let cursor: string | undefined;
  do {
    const page = await deps.storage.memories.list(scope, {
      limit: PAGE,
      order: "asc",
      cursor,
      status: "all",
    });
    if (page.memories.length > 0) yield page.memories;
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
}

/** The vectors of a page of memories, embedding again (and storing) any that is missing. */
async function vectorsOf(
  deps: Pick<Deps, "storage" | "embedder">,
  scope: AgentScope,
  page: readonly MemoryRecord[],
): Promise<Map<string, Float32Array>> {
  const fetched = await deps.storage.vectors.fetch(scope, page.map((m) => m.id));
  const vectors = new Map<string, Float32Array>(fetched.map((v) => [v.id, v.vector]));
  const missing = page.filter((m) => !vectors.has(m.id));
  for (const entry of await embedAgain(deps, scope, missing)) vectors.set(entry.id, entry.vector);
  return vectors;
}

/** How many events the world's log holds, and the newest one's seq (0 when none). */
async function countEvents(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<{ count: number; last: number }> {
  let count = 0;
  for (let after = 0;;) {
    const events = await deps.storage.events.read(worldId, after, EVENT_PAGE);
    count += events.length;
    if (events.length > 0) after = events.at(-1)!.seq;
    if (events.length < EVENT_PAGE) return { count, last: after };
  }
}
