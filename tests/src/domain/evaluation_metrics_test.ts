import assert from "node:assert/strict";
import {
  anonymiseDeep,
  anonymiseText,
  calibrate,
  fitCalibration,
  PAPER_CALIBRATION,
} from "../../../src/domain/mod.ts";

Deno.test("calibration applies the paper's Table 15 (English) parameters: human = a + b · judge", () => {
  // Table 14's judge means map to Table 14's human means through Table 15.
  assert.equal(calibrate(9.22, PAPER_CALIBRATION["MA-SI"]), 8.6); // 2.133 + 0.701 · 9.22
  assert.equal(calibrate(9.64, PAPER_CALIBRATION["MB-AL"]), 8.76); // 4.464 + 0.446 · 9.64
  assert.equal(calibrate(7.1, PAPER_CALIBRATION["MB-CR"]), 6.98); // 5.016 + 0.277 · 7.1
  assert.equal(calibrate(10, PAPER_CALIBRATION["ME-MAC"]), 8.46); // -0.183 + 0.864 · 10
  assert.deepEqual(PAPER_CALIBRATION["MA-AF"], { a: 1.189, b: 0.707 });
});

Deno.test("fitCalibration is the least-squares line; a constant judge gives a flat line", () => {
  const line = fitCalibration([
    { judge: 6, human: 2.133 + 0.701 * 6 },
    { judge: 8, human: 2.133 + 0.701 * 8 },
    { judge: 10, human: 2.133 + 0.701 * 10 },
  ]);
  assert.deepEqual(line, { a: 2.133, b: 0.701 });
  assert.deepEqual(
    fitCalibration([{ judge: 1, human: 2 }, { judge: 3, human: 3 }, { judge: 5, human: 7 }]),
    {
      a: 0.25, // mean human 4 − 1.25 · mean judge 3
      b: 1.25, // Σ(dx·dy) 10 / Σdx² 8
    },
  );
  assert.deepEqual(fitCalibration([{ judge: 9, human: 7 }, { judge: 9, human: 8 }]), {
    a: 7.5,
    b: 0,
  });
  assert.throws(() => fitCalibration([]), RangeError);
});

Deno.test("the anonymised counterpart removes names, nicknames, other people and places", () => {
  const cues = {
    name: "Isabella Rodriguez",
    nickname: "Izzy",
    others: ["Maria Lopez", "Klaus Mueller"],
    places: ["Hobbs Cafe"],
  };
  assert.equal(
    anonymiseText(
      "Isabella's friend Maria asked Izzy and Klaus Mueller about Hobbs Cafe. Rodriguez smiled.",
      cues,
    ),
    "the character's friend Person A asked the character and Person B about a place. the character smiled.",
  );
  assert.equal(anonymiseText("Isabellas and Mariachi stay", cues), "Isabellas and Mariachi stay");
  const persona = {
    name: "Isabella Rodriguez",
    relationships: [{ name: "Maria Lopez", attitude: "warm" }],
  };
  assert.deepEqual(anonymiseDeep(persona, cues), {
    name: "the character",
    relationships: [{ name: "Person A", attitude: "warm" }],
  });
  assert.equal(persona.name, "Isabella Rodriguez", "the original is not changed");
});
