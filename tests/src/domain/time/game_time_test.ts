import assert from "node:assert/strict";
import {
  addMinutes,
  gameMinutes,
  gameMinutesFast,
  GameTime,
  hoursBetween,
} from "../../../../src/domain/time/game_time.ts";

Deno.test("GameTime accepts YYYY-MM-DDTHH:MM:SS and rejects zones, fractions and impossible dates", () => {
  assert.ok(GameTime.safeParse("2023-02-13T07:00:00").success);
  for (
    const bad of [
      "2023-02-13T07:00:00Z",
      "2023-02-13 07:00:00",
      "2023-02-30T07:00:00",
      "2023-02-13T25:00:00",
      "2023-02-13T07:00:00.5",
      "tomorrow",
    ]
  ) {
    assert.ok(!GameTime.safeParse(bad).success, bad);
  }
});

Deno.test("gameMinutesFast() agrees with gameMinutes() across centuries, leap days and seconds", () => {
  for (
    const t of [
      "1970-01-01T00:00:00",
      "2000-02-29T23:59:59",
      "2023-02-13T07:00:30",
      "1899-12-31T12:00:00",
      "2100-03-01T00:00:00",
    ]
  ) {
    assert.equal(gameMinutesFast(t), gameMinutes(t), t);
  }
});

Deno.test("addMinutes() and hoursBetween() cross days and months", () => {
  assert.equal(addMinutes("2023-02-28T23:50:00", 20), "2023-03-01T00:10:00");
  assert.equal(hoursBetween("2023-02-13T07:00:00", "2023-02-14T09:30:00"), 26.5);
});
