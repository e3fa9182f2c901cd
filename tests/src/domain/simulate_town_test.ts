import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import { simulateTown, type TickFunction } from "../../../src/eval/simulate_town.ts";
import { AgentId } from "../../../src/domain/ids.ts";
import { perceive } from "../../../src/app/perceive.ts";
import { addMinutes, type GameTime } from "../../../src/domain/time/game_time.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";
import { TOWNS } from "../../../towns/mod.ts";

/** Deps whose offline model books usage into the store's ledger, as openServices wires it. */
async function ledgerDeps() {
  const deps = await makeTestDeps();
  deps.model = new OfflineLanguageModel({ onUsage: (r) => deps.storage.usage.add(r) });
  return deps;
}

/**
 * A stand-in for the engine's tick: moves its own clock, tells Nadia about the party once, and
 * puts Lucia, Nadia and Felix at the cafe and everyone else at home.
 */
function scriptedTick(start: GameTime): TickFunction {
  let now = start;
  let told = false;
  return async (deps, worldId, { minutes }) => {
    now = addMinutes(now, minutes);
    if (!told) {
      told = true;
      await perceive(deps, { worldId, agentId: AgentId.parse("nadia") }, {
        observations: [{
          text: "Lucia Ferreira invited Nadia Haddad to her Valentine's Day party",
        }],
      });
    }
    const atCafe = new Set(["lucia", "nadia", "felix"]);
    return {
      clock: { now },
      steps: ["lucia", "nadia", "felix", "jun"].map((agentId) => ({
        agentId,
        location: atCafe.has(agentId) ? "Marigold Cafe:cafe:counter" : "Ashford College Dorm",
        error: agentId === "jun" && now === addMinutes(start, minutes) ? "boom" : undefined,
      })),
    };
  };
}

Deno.test("simulateTown() ticks the town for the hours asked and measures it", async () => {
  await using deps = await ledgerDeps();
  let wall = 0;
  const seen: number[] = [];
  const start = "2023-02-13T07:00:00" as GameTime;
  const { summary } = await simulateTown(deps, {
    template: "smallville",
    catalog: TOWNS,
    hours: 2.5,
    minutesPerTick: 60,
    concurrency: 3,
    tick: scriptedTick(start),
    wallClock: () => (wall += 500),
    worldId: "sim",
    onProgress: (p) => seen.push(p.minutesDone),
  });
  assert.deepEqual(seen, [0, 60, 120, 150], "the last tick is shortened to land on 2.5 hours");
  assert.equal(summary.agents, 25);
  assert.equal(summary.ticks, 3);
  assert.equal(summary.gameHours, 2.5);
  assert.equal(summary.stepErrors, 1);
  assert.deepEqual(summary.stepErrorExamples, ["boom"]);
  assert.equal(summary.concurrency, 3);
  assert.equal(summary.model, "offline");
  assert.equal(summary.setup.calls, 0, "the town is loaded from its archive: no call at setup");
  assert.ok(summary.modelCalls >= 1, "the perceive in the first tick");
  assert.ok(summary.wallSeconds > 0);
  assert.deepEqual(summary.diffusion.party.knows, ["Lucia Ferreira", "Nadia Haddad"]);
  assert.equal(summary.diffusion.party.shareBefore, 0.04);
  assert.deepEqual(summary.diffusion.candidacy.knows, ["Walter Bergstrom"]);
  assert.ok(summary.networkDensity.before > 0.1);
  assert.ok(summary.networkDensity.after >= summary.networkDensity.before);
  assert.deepEqual(summary.partyAttendance, null, "this world started on Feb 13 at 07:00");
});

Deno.test("simulateTown() reports party attendance when the run reaches the party", async () => {
  await using deps = await ledgerDeps();
  // The template starts on Feb 13 at 07:00; 35 hours reach Feb 14, 18:00.
  const { summary } = await simulateTown(deps, {
    template: "smallville",
    catalog: TOWNS,
    hours: 35,
    minutesPerTick: 60,
    tick: scriptedTick("2023-02-13T07:00:00" as GameTime),
    wallClock: () => 0,
  });
  assert.equal(summary.endTime, "2023-02-14T18:00:00");
  assert.deepEqual(summary.partyAttendance, {
    attendees: ["Nadia Haddad", "Felix Brandt"],
    count: 2,
    informed: 1,
    hostPresent: true,
  });
});

Deno.test("simulateTown() refuses a run under a minute and a tick that does not move", async () => {
  await using deps = await ledgerDeps();
  const stuck: TickFunction = () =>
    Promise.resolve({ clock: { now: "2023-02-13T07:00:00" as GameTime }, steps: [] });
  await assert.rejects(
    simulateTown(deps, {
      template: "smallville",
      catalog: TOWNS,
      hours: 0,
      tick: stuck,
      wallClock: () => 0,
    }),
    RangeError,
  );
  await assert.rejects(
    simulateTown(deps, {
      template: "smallville",
      catalog: TOWNS,
      hours: 1,
      tick: stuck,
      wallClock: () => 0,
    }),
    /a tick left its clock/,
  );
});
