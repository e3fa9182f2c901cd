/**
 * Memory upkeep over HTTP on both backends (README "Memory upkeep"): archiving under the world's
 * memoryBudget, listing archived memories and retrieving them back.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";

const { backends, close } = await startBackends();

interface Memory {
  id: string;
  kind: string;
  description: string;
  archivedAt?: string;
  mergedInto?: string;
  supersededBy?: string;
  count?: number;
}

const MIRA = {
  id: "mira",
  name: "Mira Stone",
  description: "Mira keeps the inn at the crossroads; she distrusts strangers",
};

/** Every memory of a listing (`?archived=true` or not), newest first. */
async function listed(
  app: Parameters<typeof call>[0],
  a: string,
  query = "",
): Promise<Memory[]> {
  const out: Memory[] = [];
  let cursor = "";
  do {
    const page = await call(app, "GET", `${a}/memories?limit=500${query}${cursor}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    out.push(...page.body.memories);
    cursor = page.body.next ? `&cursor=${page.body.next}` : "";
  } while (cursor);
  return out;
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] perceive past memoryBudget archives the least retained; ?archived=true lists them, includeArchived retrieves them`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await worldWithAgent(app, MIRA, { memoryBudget: 10 });
        const texts = Array.from(
          { length: 12 },
          (_, i) => `a traveller number ${i} is sitting on the bench`,
        );
        texts.push("A dragon burned down the mill by the river");
        const p = await call(app, "POST", `${a}/perceive`, {
          observations: texts.map((text, i) => ({
            text,
            at: `2023-02-13T07:${String(10 + i).padStart(2, "0")}:00`,
          })),
        });
        assert.equal(p.status, 200, JSON.stringify(p.body));
        const live = await listed(app, a);
        const archived = await listed(app, a, "&archived=true");
        assert.equal(live.length + archived.length, 2 + texts.length, "nothing is lost");
        assert.equal(live.length, 9, "a tenth below the budget of 10");
        assert.ok(archived.every((m) => m.archivedAt !== undefined && m.kind === "observation"));
        assert.equal(live.filter((m) => m.kind === "seed").length, 2, "seeds stay live");
        assert.ok(
          live.some((m) => m.description.includes("dragon")),
          "the important memory stays live",
        );
        const oldest = archived.find((m) => m.description.includes("number 0 "));
        assert.ok(oldest, "the oldest routine sighting is archived");

        const query = { query: "traveller number 0 sitting on the bench", k: 20 };
        const plain = await call(app, "POST", `${a}/retrieve`, query);
        assert.equal(plain.status, 200, JSON.stringify(plain.body));
        assert.ok(plain.body.memories.every((m: Memory) => m.archivedAt === undefined));
        assert.equal(plain.body.memories.length, live.length);
        const back = await call(app, "POST", `${a}/retrieve`, { ...query, includeArchived: true });
        assert.equal(back.status, 200, JSON.stringify(back.body));
        const found = back.body.memories.find((m: Memory) => m.id === oldest.id);
        assert.equal(found?.archivedAt, oldest.archivedAt, "scored, and flagged by archivedAt");
        assert.equal(back.body.memories.length, live.length + archived.length);
      }),
  });

  Deno.test({
    name: `[${backend.name}] memoryBudget is validated like the other settings`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { w } = await worldWithAgent(app, MIRA);
        const world = await call(app, "GET", w);
        assert.equal(world.body.settings.memoryBudget, 500);
        for (const memoryBudget of [0, 9, 2.5, "many", 100_001]) {
          const res = await call(app, "PATCH", w, { settings: { memoryBudget } });
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error.code, "invalid_request");
        }
        const ok = await call(app, "PATCH", w, { settings: { memoryBudget: 50 } });
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal(ok.body.settings.memoryBudget, 50);
      }),
  });
}

Deno.test({
  name: "memory upkeep routes: close the backends",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => close(),
});
