import assert from "node:assert/strict";
import type { WorldId } from "../../src/domain/ids.ts";
import type { NewEvent } from "../../src/ports/event_log.ts";
import { startBackends } from "../_helpers/backends.ts";
import {
  type App,
  eventStreamsEnded,
  sanitizersFor,
  withBackendApp,
} from "../_helpers/backend_app.ts";
import { readSse } from "../_helpers/sse.ts";

const { backends, close } = await startBackends();
const AT = "2023-02-13T07:00:00";
const W = "/v1/worlds/town";

async function page(app: App, query: string) {
  const res = await app.request(`${W}/events${query}`);
  return { status: res.status, body: await res.json() };
}

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] events: from=latest, agent and type filters, event names, latest seq`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app, deps) => {
        const made = await app.request("/v1/worlds", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ id: "town", name: "Town", startTime: AT }),
        });
        assert.equal(made.status, 201);
        const log = (events: NewEvent[]) => deps.storage.events.append("town" as WorldId, events);
        await log([
          { type: "tick", at: AT },
          { type: "perceived", at: AT, agentId: "ann" },
          { type: "conversation", at: AT, agentId: "bob" },
          { type: "tick", at: AT },
        ]);

        const all = await page(app, "");
        assert.equal(all.status, 200);
        assert.equal(all.body.latest, 4);
        assert.deepEqual(all.body.events.map((e: { seq: number }) => e.seq), [1, 2, 3, 4]);

        const now = await page(app, "?from=latest");
        assert.deepEqual(now.body, { events: [], next: 4, latest: 4 });

        const ann = await page(app, "?agent=ann");
        assert.deepEqual(ann.body.events.map((e: { type: string }) => e.type), ["perceived"]);
        assert.equal(ann.body.next, 4, "the cursor moves past filtered-out events");
        const types = await page(app, "?type=tick,conversation&limit=2");
        assert.deepEqual(types.body.events.map((e: { seq: number }) => e.seq), [1, 3]);
        const rest = await page(app, `?type=tick,conversation&cursor=${types.body.next}`);
        assert.deepEqual(rest.body.events.map((e: { seq: number }) => e.seq), [4]);

        for (const bad of ["?from=latest&after=2", "?colour=red", "?type=DROP;", "?from=soon"]) {
          const res = await page(app, bad);
          assert.equal(res.status, 400, bad);
          assert.equal(res.body.error.code, "invalid_request");
        }

        // A live stream from now on, ticks only: history and other types never arrive.
        const res = await app.request(`${W}/events?from=latest&type=tick`, {
          headers: { accept: "text/event-stream" },
        });
        assert.equal(res.status, 200);
        await log([{ type: "perceived", at: AT, agentId: "ann" }, { type: "tick", at: AT }]);
        const [frame] = await readSse(res, 1);
        assert.equal(frame.event, "tick");
        assert.equal(frame.id, "6");
        assert.equal(frame.data.seq, 6);

        // A stream filtered by agent, from the start, names each event by its type.
        const annStream = await app.request(`${W}/events?agent=ann`, {
          headers: { accept: "text/event-stream" },
        });
        const annFrames = await readSse(annStream, 2);
        assert.deepEqual(annFrames.map((f) => [f.event, f.id]), [["perceived", "2"], [
          "perceived",
          "5",
        ]]);
        // Both disconnected streams stop before the sanitizers look.
        await eventStreamsEnded(app, 2);
      }),
  });
}

Deno.test({
  name: "event routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
