/**
 * An area's optional map position (the cell where the playground draws it): kept through
 * `PUT …/environment` on both backends, refused when out of the grid or shared by two areas,
 * and environments without positions are answered as before.
 */
import assert from "node:assert/strict";
import { Environment } from "../../src/domain/world/environment.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { call } from "../_helpers/http_call.ts";

const { backends, close } = await startBackends();

const TOWN = {
  areas: [
    { name: "Cafe", common: true, subAreas: [{ name: "cafe" }], position: { x: 2, y: 0 } },
    { name: "Park", common: true, subAreas: [{ name: "lawn" }] },
  ],
};

Deno.test("Environment keeps a map position and refuses one off the grid or shared", () => {
  const env = Environment.parse(TOWN);
  assert.deepEqual(env.areas[0].position, { x: 2, y: 0 });
  assert.equal("position" in env.areas[1], false, "no position is added when none was sent");
  const refused = [
    { x: -1, y: 0 },
    { x: 12, y: 0 },
    { x: 0, y: 100 },
    { x: 1.5, y: 0 },
    { x: 1 },
    { x: 1, y: 1, z: 1 },
  ];
  for (const position of refused) {
    const bad = { areas: [{ ...TOWN.areas[0], position }] };
    assert.equal(Environment.safeParse(bad).success, false, JSON.stringify(position));
  }
  const shared = Environment.safeParse({
    areas: [TOWN.areas[0], { ...TOWN.areas[1], position: { x: 2, y: 0 } }],
  });
  assert.equal(shared.success, false);
  assert.match(shared.error!.issues[0].message, /"Park" and "Cafe" cannot share the map cell/);
  assert.deepEqual(shared.error!.issues[0].path, ["areas", 1, "position"]);
});

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] PUT …/environment keeps map positions; a shared cell is a 400`,
    ...sanitizersFor(backend),
    async fn() {
      await withBackendApp(backend, async (app) => {
        const w = await call(app, "POST", "/v1/worlds", {
          name: "Map",
          startTime: "2023-02-13T07:00:00",
        });
        assert.equal(w.status, 201, JSON.stringify(w.body));
        const path = `/v1/worlds/${w.body.id}/environment`;
        const put = await call(app, "PUT", path, TOWN);
        assert.equal(put.status, 200, JSON.stringify(put.body));
        const got = await call(app, "GET", path);
        assert.deepEqual(got.body.areas.map((a: { position?: unknown }) => a.position), [
          { x: 2, y: 0 },
          undefined,
        ]);
        const clash = await call(app, "PUT", path, {
          areas: [TOWN.areas[0], { ...TOWN.areas[1], position: { x: 2, y: 0 } }],
        });
        assert.equal(clash.status, 400, JSON.stringify(clash.body));
        assert.match(clash.body.error.message, /cannot share the map cell/);
        assert.deepEqual((await call(app, "GET", path)).body, got.body, "the old tree stays");
      });
    },
  });
}

Deno.test({
  name: "map position tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
