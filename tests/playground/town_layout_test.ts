/**
 * The town board's layout, computed from the environment tree alone (playground/public/js/
 * town_layout.js has no DOM): the same tree gives the same map, a pinned area keeps its cell,
 * big areas span two cells, and every agent is placed in its room or listed as off the map.
 */
import assert from "node:assert/strict";
import { doingOf, layoutTown, placeAgents } from "../../playground/public/js/town_layout.js";
import { smallvilleTown } from "../../towns/smallville.ts";

const area = (name: string, rooms = 1, position?: { x: number; y: number }) => ({
  name,
  subAreas: Array.from({ length: rooms }, (_, i) => ({ name: `room ${i}`, objects: [] })),
  ...(position ? { position } : {}),
});

Deno.test("layoutTown() gives every area of the example town its own cells, the same each time", () => {
  const { environment } = smallvilleTown();
  const first = layoutTown(environment.areas);
  assert.deepEqual(layoutTown(structuredClone(environment.areas)), first);
  assert.equal(first.cells.length, environment.areas.length);
  const taken = new Set<string>();
  for (const cell of first.cells) {
    for (let c = cell.col; c < cell.col + cell.span; c++) {
      const key = `${cell.row}:${c}`;
      assert.ok(!taken.has(key), `${cell.name} overlaps at ${key}`);
      assert.ok(c <= first.columns, `${cell.name} fits in the map`);
      taken.add(key);
    }
  }
  const dorm = first.cells.find((c) => c.name === "Ashford College Dorm")!;
  assert.equal(dorm.span, 2, "an area of 6 rooms or more is wide");
  assert.equal(first.cells[0].col, 1);
  assert.equal(first.cells[0].row, 1);
});

Deno.test("layoutTown() honours pinned positions and flows the rest around them", () => {
  const { columns, cells } = layoutTown([
    area("A"),
    area("B", 1, { x: 0, y: 0 }),
    area("C", 1, { x: 5, y: 2 }),
    area("D", 1, { x: 0, y: 0 }), // the cell is B's: D flows
    area("E", 7),
  ]);
  assert.equal(columns, 6, "a pinned column widens the map");
  const at = Object.fromEntries(cells.map((c) => [c.name, [c.col, c.row, c.span]]));
  assert.deepEqual(at.B, [1, 1, 1]);
  assert.deepEqual(at.C, [6, 3, 1]);
  assert.deepEqual(at.A, [2, 1, 1]);
  assert.deepEqual(at.D, [3, 1, 1]);
  assert.deepEqual(at.E, [4, 1, 2]);
});

Deno.test("placeAgents() puts agents in their rooms; doingOf() says where one stands before acting", () => {
  const rooms = new Set(["Home:bedroom", "Cafe:cafe"]);
  const agents = [
    { id: "a", name: "Ann", location: "Home:bedroom:bed", action: null },
    { id: "b", name: "Ben", location: "Cafe:cafe:counter", action: "serving coffee" },
    { id: "c", name: "Cy", location: null, action: null },
    { id: "d", name: "Di", location: "Gone:hall:chair", action: null },
  ];
  const { byRoom, unplaced } = placeAgents(agents, rooms);
  assert.deepEqual(byRoom.get("Home:bedroom")!.map((a) => a.id), ["a"]);
  assert.deepEqual(byRoom.get("Cafe:cafe")!.map((a) => a.id), ["b"]);
  assert.deepEqual(unplaced.map((a) => a.id), ["c", "d"]);
  assert.equal(doingOf(agents[0]), "by the bed");
  assert.equal(doingOf(agents[1]), "serving coffee");
  assert.equal(doingOf(agents[2]), "not on the map yet");
});
