/**
 * Validate before spending: perceive refuses what it can before any model call and names the
 * item; game times stay within years 1-9998; ticks that would pass them are refused.
 */
import assert from "node:assert/strict";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { call } from "../_helpers/http_call.ts";
import { countingModel } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] perceive refuses before spending and names the item`,
    ...sanitizersFor(backend),
    async fn() {
      const { model, kinds } = countingModel();
      await withBackendApp(backend, async (app) => {
        const w = await call(app, "POST", "/v1/worlds", {
          name: "V",
          startTime: "2023-02-13T07:00:00",
        });
        const base = `/v1/worlds/${w.body.id}/agents`;
        assert.equal(
          (await call(app, "POST", base, { id: "ann", name: "Ann", description: "Ann" })).status,
          201,
        );
        const perceive = (observations: unknown[]) =>
          call(app, "POST", `${base}/ann/perceive`, { observations });
        const count = async () =>
          (await call(app, "GET", `${base}/ann/memories?kind=observation`)).body.memories.length;

        const before = kinds.length;
        const ahead = await perceive([
          { text: "The bakery opens" },
          { text: "A comet hits the town", at: "9998-01-01T00:00:00" },
        ]);
        assert.equal(ahead.status, 422, JSON.stringify(ahead.body));
        assert.equal(ahead.body.error.details.index, 1);
        assert.match(ahead.body.error.message, /observation 1/);
        const bad = await perceive([{ text: "fine" }, { text: "   " }]);
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error.details.index, 1);
        const year = await perceive([{ text: "late", at: "9999-12-31T23:00:00" }]);
        assert.equal(year.status, 400);
        assert.match(year.body.error.message, /year from 1 to 9998/);
        assert.equal(kinds.length, before, "no model call for a refused request");
        assert.equal(await count(), 0, "nothing stored");

        const ok = await perceive([
          { text: "The bakery opens", eventId: "e1" },
          { text: "!!!" },
          { text: "🙂" },
          { text: "Within the margin", at: "2023-02-13T20:00:00" },
        ]);
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal(await count(), 4, "texts without letters are stored like any other");

        const other = await perceive([{ text: "The bakery closes", eventId: "e1" }]);
        assert.equal(other.status, 409, JSON.stringify(other.body));
        assert.equal(other.body.error.details.index, 0);
        assert.equal(other.body.error.details.storedText, "The bakery opens");
        assert.match(other.body.error.message, /"The bakery opens"/);
        const same = await perceive([{ text: "the bakery  opens", eventId: "e1" }]);
        assert.deepEqual(same.body.outcomes, ["existing"], "the same text, spaced differently");
      }, { model });
    },
  });
}

Deno.test("a world near the last game year refuses a tick that would pass it (422)", async () => {
  await withBackendApp(backends[0], async (app) => {
    const late = await call(app, "POST", "/v1/worlds", {
      name: "End of time",
      startTime: "9998-12-31T23:00:00",
    });
    assert.equal(late.status, 201, JSON.stringify(late.body));
    const tick = await call(app, "POST", `/v1/worlds/${late.body.id}/tick`, { minutes: 120 });
    assert.equal(tick.status, 422, JSON.stringify(tick.body));
    assert.match(tick.body.error.message, /last game year, 9998/);
    const world = await call(app, "GET", `/v1/worlds/${late.body.id}`);
    assert.equal(world.body.clock.now, "9998-12-31T23:00:00", "the clock did not move");
    const fine = await call(app, "POST", `/v1/worlds/${late.body.id}/tick`, { minutes: 30 });
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    const tooLate = await call(app, "POST", "/v1/worlds", {
      name: "Overflow",
      startTime: "9999-12-31T23:00:00",
    });
    assert.equal(tooLate.status, 400);
    const early = await call(app, "POST", "/v1/worlds", {
      name: "Antiquity",
      startTime: "0050-03-01T12:00:00",
    });
    assert.equal(early.status, 201, JSON.stringify(early.body));
    assert.equal(early.body.clock.now, "0050-03-01T12:00:00");
  });
});

Deno.test({
  name: "perceive validation tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
