/**
 * @module Benchmarks of the game-client surface (issue #12): reading the spoken words out of a
 * streamed answer, a streamed reply against a plain one, and deleting a whole 25-agent town on
 * each backend (every store scanned and emptied).
 *
 * Run with `deno bench -A tests/bench/client_surface_bench.ts`.
 */
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { TOWNS } from "../../towns/mod.ts";
import { SpokenWords } from "../../src/mind/reply_stream.ts";
import { startBackends } from "../_helpers/backends.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const { backends } = await startBackends();

const REPLY = JSON.stringify({
  reply:
    "Mira Stone: We have one room left, at the back, past the kitchen. It is small and the window sticks, but the bed is dry and the fire is lit. Two silver for the night, breakfast included, and I will want it before you go up.",
  thoughts: "He looks tired, not dangerous. Still, keep the ledger close.",
  actions: "wipes the counter",
  bounded: false,
  importance: 3,
  replan: false,
});

Deno.bench("SpokenWords: a 400-character answer in 8-character pieces", { group: "words" }, () => {
  let n = 0;
  const words = new SpokenWords("Mira Stone", (d) => n += d.length);
  for (let i = 0; i < REPLY.length; i += 8) words.push(REPLY.slice(i, i + 8));
  if (n === 0) throw new Error("no words");
});

const deps = await makeTestDeps();
const app = createApp(deps, { logger: silentLogger });
const post = (path: string, body: unknown, accept = "application/json") =>
  app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept },
    body: JSON.stringify(body),
  });
await post("/v1/worlds", {
  id: "inn",
  name: "Inn",
  startTime: "2023-02-13T07:00:00",
  clock: { mode: "manual" },
});
await post("/v1/worlds/inn/agents", {
  id: "mira",
  name: "Mira Stone",
  description: "Mira keeps the inn; she distrusts strangers; she owes the brewer money",
});
const ask = { message: "A room for the night?", mode: "interview" };

Deno.bench(
  "respond, JSON (offline model, embedded)",
  { group: "respond", baseline: true },
  async () => {
    await (await post("/v1/worlds/inn/agents/mira/respond", ask)).json();
  },
);

Deno.bench("respond, streamed (offline model, embedded)", { group: "respond" }, async () => {
  await (await post("/v1/worlds/inn/agents/mira/respond", ask, "text/event-stream")).text();
});

for (const backend of backends) {
  Deno.bench(
    `DELETE a smallville town, 25 agents (${backend.name})`,
    { group: "delete", n: 5, warmup: 1 },
    async (b) => {
      await using town = await makeTestDeps({ storage: await backend.open() });
      const townApp = createApp(town, { logger: silentLogger, towns: TOWNS });
      const made = await townApp.request("/v1/worlds", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: "town", name: "Smallville", template: "smallville" }),
      });
      if (made.status !== 201) throw new Error(await made.text());
      b.start();
      const res = await townApp.request("/v1/worlds/town", { method: "DELETE" });
      b.end();
      if (res.status !== 200) throw new Error(await res.text());
    },
  );
}
