/**
 * Issue 25's storage budget in the example town's busy hours, through the real server on the
 * hosted backend: `main.ts` (its Deno KV tick queue) over the local Upstash gateway, which counts
 * Redis requests. One run from 07:00 to 18:00 (66 ticks, about a minute), two pins:
 *
 * - The morning: 07:00–09:00 cost 7.6 and 4.3 requests per agent step before the tick queue's
 *   steps were handled together and counters, commits and renewals shared pipelined requests
 *   (2.2–2.8 and 1.8 after). The margins are for how concurrent steps happen to share requests
 *   on a loaded machine (07:00 measured 3.67 while another server ticked on the same two cores):
 *   each hour at most 4.5, the two together at most 3.5.
 * - The conversation hours (12:00–17:00; which of them is busiest changes from run to run, as
 *   the town's talks and who overhears them do): the busiest cost 7.1–7.5 requests per agent step
 *   while each listener's overheard memories were read and written one listener at a time and
 *   each query of a conversation line cost two sequential requests; 3.9–4.1 after, and 3.3–3.9
 *   since a waiting tick is told of its close in process and usage counters ride other requests
 *   (every hour of the day in BENCHMARKS.md, `tests/bench/hosted_hours_server.ts`). At most 4.5
 *   in each (the margin for a loaded machine, where concurrent steps share fewer requests).
 */
import assert from "node:assert/strict";
import { hasRedisServer } from "../_helpers/backends.ts";
import { type HourCost, meterServerHours } from "../_helpers/hosted_server_hours.ts";

/** Most requests per agent step in either morning hour, and over the two. */
const MOST_IN_A_MORNING_HOUR = 4.5;
const MOST_IN_THE_MORNING = 3.5;
/** Most requests per agent step in any hour from 09:00 to 18:00 (the conversations). */
const MOST_IN_A_LATER_HOUR = 4.5;

const ignore = !(await hasRedisServer());
let day: Promise<HourCost[]> | undefined;
/** The one run both tests read, started by the first that needs it. */
function meterDay(): Promise<HourCost[]> {
  day ??= meterServerHours({ hours: 11, start: "07:00" }).then((hours) => {
    // deno-lint-ignore no-console
    console.log(hours.map((h) => `${h.hour} ${h.perStep.toFixed(2)}`).join(", "));
    return hours;
  });
  return day;
}

Deno.test({
  name:
    `07:00–09:00 of the example town through the server on the hosted backend cost at most ${MOST_IN_THE_MORNING} Redis requests per agent step (${MOST_IN_A_MORNING_HOUR} in either hour)`,
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const hours = (await meterDay()).slice(0, 2);
    assert.deepEqual(hours.map((h) => h.hour), ["07:00", "08:00"]);
    for (const h of hours) {
      assert.ok(h.requests > 0, `${h.hour}: no requests counted`);
      assert.ok(
        h.perStep <= MOST_IN_A_MORNING_HOUR,
        `${h.hour}: ${h.perStep.toFixed(2)} requests per agent step`,
      );
    }
    const mean = hours.reduce((sum, h) => sum + h.perStep, 0) / hours.length;
    assert.ok(
      mean <= MOST_IN_THE_MORNING,
      `${mean.toFixed(2)} requests per agent step over the two hours`,
    );
  },
});

Deno.test({
  name:
    `every hour from 09:00 to 18:00 of the example town (its conversations) through the server on the hosted backend costs at most ${MOST_IN_A_LATER_HOUR} Redis requests per agent step`,
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const hours = (await meterDay()).slice(2);
    assert.equal(hours.length, 9);
    for (const h of hours) {
      assert.ok(h.requests > 0, `${h.hour}: no requests counted`);
      assert.ok(
        h.perStep <= MOST_IN_A_LATER_HOUR,
        `${h.hour}: ${h.perStep.toFixed(2)} requests per agent step`,
      );
    }
  },
});
