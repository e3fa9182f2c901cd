/**
 * Issue 25's storage budget in the example town's busy hours, through the real server on the
 * hosted backend: `main.ts` (its Deno KV tick queue) over the local Upstash gateway, which counts
 * Redis requests. One run from 07:00 to 18:00 (66 ticks, about a minute); every hour near issue
 * 25's goal of at most 3 Redis requests per agent step (see {@linkcode MOST_IN_AN_HOUR}), in two pins:
 *
 * - The morning: 07:00–09:00 cost 7.6 and 4.3 requests per agent step before the tick queue's
 *   steps were handled together and counters, commits and renewals shared pipelined requests
 *   (2.2–2.8 and 1.8 after; 07:00 measured 3.67 while another server ticked on the same two
 *   cores); 1.8–2.3 and 1.5 since a recall reads all its queries' candidates in one request.
 * - The conversation hours (12:00–17:00; which of them is busiest changes from run to run, as
 *   the town's talks and who overhears them do): the busiest cost 7.1–7.5 requests per agent step
 *   while each listener's overheard memories were read and written one listener at a time and
 *   each query of a conversation line cost two sequential requests; 3.9–4.1 after, 3.2–3.4
 *   since a waiting tick is told of its close in process and usage counters ride other requests,
 *   and 2.4–2.8 (load average 3–4) since a recall's queries share one candidates read, a model
 *   call's usage counters and budget spend one request, a short first page of memories is read
 *   with its records, and a tick's talks read what their listeners overheard together (every
 *   hour of the day in BENCHMARKS.md, `tests/bench/hosted_hours_server.ts`).
 */
import assert from "node:assert/strict";
import { hasRedisServer } from "../_helpers/backends.ts";
import { type HourCost, meterServerHours } from "../_helpers/hosted_server_hours.ts";

/**
 * Most Redis requests per agent step in any hour. Issue 25's goal is 3, met by the bench
 * (2.41–2.75 at the busiest hour, BENCHMARKS.md); in the full suite, where what rides a shared
 * pipelined request depends on timing, 17:00 measured 2.59–3.01 in four runs. The pin leaves that
 * timing room and still fails well short of the 3.25–3.85 before the last savings (each saving is
 * pinned exactly in `upstash_storage_cost_test.ts`).
 */
const MOST_IN_AN_HOUR = 3.2;

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
    `07:00–09:00 of the example town through the server on the hosted backend cost at most ${MOST_IN_AN_HOUR} Redis requests per agent step in either hour`,
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const hours = (await meterDay()).slice(0, 2);
    assert.deepEqual(hours.map((h) => h.hour), ["07:00", "08:00"]);
    for (const h of hours) {
      assert.ok(h.requests > 0, `${h.hour}: no requests counted`);
      assert.ok(
        h.perStep <= MOST_IN_AN_HOUR,
        `${h.hour}: ${h.perStep.toFixed(2)} requests per agent step`,
      );
    }
  },
});

Deno.test({
  name:
    `every hour from 09:00 to 18:00 of the example town (its conversations) through the server on the hosted backend costs at most ${MOST_IN_AN_HOUR} Redis requests per agent step`,
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const hours = (await meterDay()).slice(2);
    assert.equal(hours.length, 9);
    for (const h of hours) {
      assert.ok(h.requests > 0, `${h.hour}: no requests counted`);
      assert.ok(
        h.perStep <= MOST_IN_AN_HOUR,
        `${h.hour}: ${h.perStep.toFixed(2)} requests per agent step`,
      );
    }
  },
});
