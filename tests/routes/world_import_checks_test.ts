/**
 * An import checks what the JSON API checks, on both backends, and writes nothing when a line
 * fails: text with control characters, embeddings no index can use (zero, not finite), and a
 * header whose counts are not the file's are each a 400 naming the line. The export's header
 * counts what the file holds, so a world exported while it changes still imports.
 */
import assert from "node:assert/strict";
import { exportWorld } from "../../src/app/archive/export_world.ts";
import { encodeVector } from "../../src/domain/archive/archive_format.ts";
import { SimulacraError } from "../../src/domain/errors.ts";
import { AgentId, WorldId } from "../../src/domain/ids.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { type App, appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { call, importArchive } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";
import { rejectionOf } from "../_helpers/rejection.ts";

const { backends, close } = await startBackends();

const importText = (app: App, text: string, query = "?id=copy") => importArchive(app, text, query);

/** A world with one agent who perceived a few things, exported: its lines, parsed. */
async function exported(app: App): Promise<Record<string, unknown>[]> {
  const { w, a } = await worldWithAgent(app, {
    id: "mira",
    name: "Mira Stone",
    description: "Mira keeps the inn; she distrusts strangers",
  });
  const p = await call(app, "POST", `${a}/perceive`, {
    observations: [
      { text: "A hooded traveller walks in from the storm" },
      { text: "The fire in the hearth is dying" },
    ],
  });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  const res = await app.request(`${w}/export?events=true`);
  assert.equal(res.status, 200);
  return (await res.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
}

/** Lines back to a file, after `edit` changed them. */
function file(
  lines: Record<string, unknown>[],
  edit: (lines: Record<string, unknown>[]) => void,
): string {
  const copy = structuredClone(lines);
  edit(copy);
  return copy.map((line) => JSON.stringify(line)).join("\n");
}

/** Nothing of the world "copy" in the store: no world, agent, memory or vector. */
async function assertNothingWritten(app: App, deps: Deps): Promise<void> {
  assert.equal((await call(app, "GET", "/v1/worlds/copy")).status, 404);
  const world = WorldId.parse("copy");
  assert.deepEqual(await deps.storage.documents.list("agents", world), []);
  const scope = { worldId: world, agentId: AgentId.parse("mira") };
  assert.equal(await deps.storage.memories.count(scope), 0);
  assert.deepEqual(await deps.storage.vectors.ids(scope), []);
}

const memoryLines = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.type === "memory") as {
    memory: { description: string };
    embedding: string;
  }[];

for (const backend of backends) {
  const withApp = appOn(backend);
  Deno.test({
    name: `[${backend.name}] POST /v1/worlds/import refuses what the JSON API refuses`,
    ...sanitizersFor(backend),
    fn: () =>
      withApp(async (app, deps) => {
        const lines = await exported(app);
        const firstMemory = lines.findIndex((line) => line.type === "memory") + 1;
        const dims = deps.embedder.info.dimensions;
        const refused = async (text: string) => {
          const res = await importText(app, text);
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error.code, "invalid_request");
          await assertNothingWritten(app, deps);
          return res.body.error;
        };

        // The same text through the JSON API, for comparison: refused.
        const api = await call(app, "POST", "/v1/worlds", {
          name: "Bad\u0000",
          startTime: "2023-02-13T07:00:00",
        });
        assert.equal(api.status, 400);

        for (const control of ["\u0000", "\u001b[2J"]) {
          const error = await refused(file(lines, (l) => {
            memoryLines(l)[0].memory.description += control;
          }));
          assert.equal(error.details.line, firstMemory);
          assert.equal(error.details.path, "memory.description");
          assert.match(error.message, /control character/);
        }
        const agentName = await refused(file(lines, (l) => {
          const doc = l.find((line) => line.collection === "agents") as { value: { name: string } };
          doc.value.name = "Mira\u0007";
        }));
        assert.equal(agentName.details.path, "value.name");

        const nan = new Float32Array(dims).fill(0.1);
        nan[3] = Number.NaN;
        for (const vector of [new Float32Array(dims), nan]) {
          const error = await refused(file(lines, (l) => {
            memoryLines(l)[0].embedding = encodeVector(vector);
          }));
          assert.equal(error.details.line, firstMemory);
          assert.equal(error.details.path, "embedding");
          assert.match(error.message, /zero or not finite/);
        }

        const claims = [["memories", 999], ["memories", 0], ["agents", 2], ["events", 5]] as const;
        for (const [key, claimed] of claims) {
          const error = await refused(file(lines, (l) => {
            (l[0].counts as Record<string, number>)[key] = claimed;
          }));
          assert.equal(error.details.line, 1, JSON.stringify(error));
          assert.equal(error.details.field, `counts.${key}`);
          assert.equal(error.details.header, claimed);
          assert.match(error.message, new RegExp(`header counts ${claimed} ${key}`));
        }

        // The untouched file imports.
        const ok = await importText(app, file(lines, () => {}));
        assert.equal(ok.status, 201, JSON.stringify(ok.body));
        assert.deepEqual(ok.body.counts, lines[0].counts);
      }),
  });
}

for (const backend of backends) {
  const withApp = appOn(backend);
  Deno.test({
    name: `[${backend.name}] exportWorld() writes what its header counts while the world changes`,
    ...sanitizersFor(backend),
    fn: () =>
      withApp(async (app, deps) => {
        await exported(app);
        const [world] = (await call(app, "GET", "/v1/worlds")).body.worlds;
        const a = `/v1/worlds/${world.id}/agents/mira`;
        const read = async (lines: AsyncGenerator<string>) => {
          const out: string[] = [];
          for await (const line of lines) out.push(line);
          return out;
        };

        // Memories and events stored after the header was written wait for the next export.
        const growing = exportWorld(deps, world.id, { events: true });
        const header = JSON.parse((await growing.next()).value!);
        const p = await call(app, "POST", `${a}/perceive`, {
          observations: [{ text: "The storm knocks out the lights" }],
        });
        assert.equal(p.status, 200);
        const text = [JSON.stringify(header), ...await read(growing)].join("\n");
        const imported = await importText(app, text);
        assert.equal(imported.status, 201, JSON.stringify(imported.body));
        assert.deepEqual(imported.body.counts, header.counts);

        // A counted memory forgotten meanwhile: the export fails rather than write a file whose
        // header lies.
        const shrinking = exportWorld(deps, world.id);
        await shrinking.next();
        const { memories } = (await call(app, "GET", `${a}/memories?limit=1`)).body;
        assert.equal((await call(app, "DELETE", `${a}/memories/${memories[0].id}`)).status, 200);
        const error = await rejectionOf(read(shrinking), SimulacraError);
        assert.equal(error.code, "conflict");
        assert.match(error.message, /1 of its memories were deleted while it was exported/);
      }),
  });
}

Deno.test({
  name: "world import check tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
