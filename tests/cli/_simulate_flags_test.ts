import assert from "node:assert/strict";
import { parseSimulateFlags } from "../../cli/_simulate_flags.ts";

Deno.test("parseSimulateFlags() fills defaults and converts numbers", () => {
  assert.deepEqual(parseSimulateFlags(["--hours", "24"]), {
    kind: "run",
    flags: {
      template: "smallville",
      hours: 24,
      concurrency: 8,
      minutesPerTick: 10,
      json: false,
      groupTalk: false,
      interview: true,
      processes: 1,
      firstTown: 1,
    },
  });
  assert.deepEqual(
    parseSimulateFlags([
      "--template",
      "smallville",
      "--hours=1.5",
      "--concurrency",
      "4",
      "--minutes-per-tick",
      "15",
      "--json",
    ]),
    {
      kind: "run",
      flags: {
        template: "smallville",
        hours: 1.5,
        concurrency: 4,
        minutesPerTick: 15,
        json: true,
        groupTalk: false,
        interview: true,
        processes: 1,
        firstTown: 1,
      },
    },
  );
  const grouped = parseSimulateFlags(["--hours", "1", "--group-talk"]);
  assert.equal(grouped.kind === "run" && grouped.flags.groupTalk, true);
  const quiet = parseSimulateFlags(["--hours", "1", "--no-interview"]);
  assert.equal(quiet.kind === "run" && quiet.flags.interview, false);
  assert.deepEqual(parseSimulateFlags(["--help"]), { kind: "help" });
  assert.deepEqual(parseSimulateFlags(["-h", "--bogus"]).kind, "invalid");
});

Deno.test("parseSimulateFlags() names every problem", async (t) => {
  const cases: [string[], RegExp][] = [
    [[], /--hours is required/],
    [["--hours", "x"], /--hours must be a number/],
    [["--hours", ""], /--hours must be a number/],
    [["--hours", "0"], /--hours must be more than 0/],
    [["--hours", "1000"], /--hours must be at most 720/],
    [["--hours", "1", "--template", "atlantis"], /--template "atlantis" is not a town/],
    [["--hours", "1", "--concurrency", "0"], /--concurrency must be at least 1/],
    [["--hours", "1", "--concurrency", "2.5"], /--concurrency must be a whole number/],
    [["--hours", "1", "--minutes-per-tick", "61"], /--minutes-per-tick must be at most 60/],
    [["--hours", "1", "--bogus"], /bogus/],
    [["--hours", "1", "extra"], /extra/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" ") || "(no flags)", () => {
      const parsed = parseSimulateFlags(args);
      assert.ok(parsed.kind === "invalid", JSON.stringify(parsed));
      assert.match(parsed.problems.join("; "), message);
    });
  }
  const both = parseSimulateFlags(["--concurrency", "0"]);
  assert.equal(both.kind === "invalid" && both.problems.length, 2, "all problems at once");
});

Deno.test("parseSimulateFlags() takes --save FILE and refuses an empty one", () => {
  const parsed = parseSimulateFlags(["--hours", "1", "--save", "town.ndjson"]);
  assert.equal(parsed.kind === "run" && parsed.flags.save, "town.ndjson");
  const empty = parseSimulateFlags(["--hours", "1", "--save", ""]);
  assert.equal(empty.kind, "invalid");
});

Deno.test("parseSimulateFlags() takes --towns N and refuses what cannot run", async (t) => {
  const parsed = parseSimulateFlags(["--hours", "1", "--towns", "40", "--seed", "7"]);
  assert.equal(parsed.kind === "run" && parsed.flags.towns, 40);
  const cases: [string[], RegExp][] = [
    [["--towns", "0"], /--towns must be at least 1/],
    [["--towns", "1.5"], /--towns must be a whole number/],
    [["--towns", "401"], /--towns must be at most 400/],
    [["--towns", "many"], /--towns must be a number/],
    [["--towns", "2", "--save", "t.ndjson"], /--save writes one town: leave out --towns/],
    [
      ["--towns", "3", "--seed", "2147483646"],
      /--seed \+ the last town's number - 1 must be at most/,
    ],
    [["--towns", "2", "--first-town", "3", "--seed", "2147483645"], /the last town's number/],
    [["--towns", "2", "--processes", "17"], /--processes must be at most 16/],
    [["--processes", "2"], /--processes and --first-town split a run of several towns/],
    [["--first-town", "5"], /add --towns N/],
    [["--towns", "2", "--first-town", "0"], /--first-town must be at least 1/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" "), () => {
      const invalid = parseSimulateFlags(["--hours", "1", ...args]);
      assert.ok(invalid.kind === "invalid", JSON.stringify(invalid));
      assert.match(invalid.problems.join("; "), message);
    });
  }
});
