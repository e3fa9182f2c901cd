import assert from "node:assert/strict";
import { attendance, type LocationSample } from "../../../../src/eval/party_attendance.ts";
import type { GameTime } from "../../../../src/domain/time/game_time.ts";

const t = (s: string) => s as GameTime;
const party = {
  host: "lucia",
  area: "Marigold Cafe",
  start: t("2023-02-14T17:00:00"),
  end: t("2023-02-14T19:00:00"),
};

function at(time: string, agentId: string, location: string | null): LocationSample {
  return { at: t(time), agentId, location };
}

Deno.test("attendance() lists who was in the area during the gathering, host apart", () => {
  const samples = [
    at("2023-02-14T18:00:00", "nadia", "Marigold Cafe:cafe:window seat"),
    at("2023-02-14T16:50:00", "felix", "marigold cafe:cafe"),
    at("2023-02-14T17:00:00", "lucia", "Marigold Cafe:cafe:counter"),
    at("2023-02-14T17:10:00", "jun", "Willow Green Park:lawn"),
    at("2023-02-14T19:00:00", "oskar", "Marigold Cafe:cafe"),
    at("2023-02-14T17:20:00", "felix", "Marigold Cafe:cafe"),
    at("2023-02-14T17:30:00", "nadia", "Marigold Cafe:cafe"),
    at("2023-02-14T17:40:00", "ruth", null),
  ];
  const run = { from: t("2023-02-13T07:00:00"), to: t("2023-02-15T07:00:00") };
  assert.deepEqual(attendance(samples, party, run), {
    attendees: ["felix", "nadia"],
    count: 2,
    hostPresent: true,
  });
});

Deno.test("attendance() is null when the run does not reach the gathering", () => {
  const day = { from: t("2023-02-13T07:00:00"), to: t("2023-02-14T07:00:00") };
  assert.equal(attendance([], party, day), null);
  const partly = { from: t("2023-02-13T07:00:00"), to: t("2023-02-14T17:30:00") };
  assert.deepEqual(attendance([], party, partly), { attendees: [], count: 0, hostPresent: false });
});
