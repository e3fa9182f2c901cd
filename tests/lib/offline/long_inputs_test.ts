/**
 * The offline model answers every prompt within its schema however long the texts it is given:
 * observations of the longest length perceive takes (2,000 characters), of every shape — a run
 * of capitalised words (read as one name), one unbroken word, ordinary prose — flow through
 * reflection, ticks, plans, reactions, conversations, replies and persona building without a
 * `model_invalid_output`.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../../lib/logger.ts";
import { createApp } from "../../../routes/app.ts";
import { call } from "../../_helpers/http_call.ts";
import { worldWithAgents } from "../../_helpers/http_world.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";

/** The longest observation perceive takes. */
const MAX = 2_000;

/** `unit` repeated to exactly {@linkcode MAX} characters. */
function longText(unit: string): string {
  return unit.repeat(Math.ceil(MAX / unit.length)).slice(0, MAX);
}

/** One long observation of each shape, by the agent that perceives it. */
const SHAPES: Record<string, string> = {
  names: longText("Grand Old Harbour Lighthouse Keeper Association "),
  word: longText("Supercalifragilistic"),
  prose: longText("the baker worried about the harbour festival and the coming storm "),
  people: longText("Mira said Tom Abernathy-Kensington met Mira "),
  accents: longText("Ünïcødé Wörds Ärë Cäpïtälïzëd Tôö "),
  spaces: longText("a "),
};

Deno.test("the offline model keeps within its schemas after 2,000-character observations", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const agents = Object.keys(SHAPES);
  const w = await worldWithAgents(
    app,
    agents.map((id) => ({ id, name: `${id} ${SHAPES[id].slice(0, 60)}`, description: SHAPES[id] })),
    // Every tick step reflects, over memories that hold the long observations.
    { reflectionThreshold: 1 },
  );
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(app, method, path, body);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  for (const [id, text] of Object.entries(SHAPES)) {
    const a = `${w}/agents/${id}`;
    await ok("POST", `${a}/perceive`, { observations: [{ text }, { text: text.toUpperCase() }] });
    await ok("POST", `${a}/reflect`, { force: true });
    await ok("POST", `${a}/plan`, {});
    await ok("POST", `${a}/react`, { observations: [text] });
    await ok("POST", `${a}/respond`, { message: text, speaker: { name: text.slice(0, 100) } });
    await ok("POST", `${a}/respond`, { message: text, mode: "inner_voice" });
    await ok("POST", `${a}/persona/build`, {});
  }
  await ok("POST", `${w}/conversations`, { participants: ["names", "people"] });
  await ok("POST", `${w}/conversations`, { participants: ["word", "accents"] });
  const reflections = async () =>
    (await ok("GET", `${w}/agents/names/memories?kind=reflection&limit=500`)).memories.length;
  const before = await reflections();
  for (let i = 0; i < 3; i++) {
    const tick = await ok("POST", `${w}/tick`, { minutes: 30 });
    assert.doesNotMatch(JSON.stringify(tick), /agent_error/, `tick ${i}`);
  }
  assert.ok(await reflections() > before, "the ticks reflected");
});
