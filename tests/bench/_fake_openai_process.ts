/**
 * @module The fake OpenAI server in a process of its own, for `town_wall_time.ts`: a real model
 * server is not in the simulation's process either, and on this 2-core machine the fake's HTTP
 * and JSON work then runs on the other core. Prints its base URL as the first line of stdout,
 * then serves until killed. It keeps no request log (a day of 40 towns is ~100,000 requests).
 * Run: `deno run -A tests/bench/_fake_openai_process.ts <latencyMs>`.
 */
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";

const fake = await startFakeOpenAi({
  latencyMs: Number(Deno.args[0] ?? 300),
  embeddingDimensions: 384,
});
setInterval(() => fake.requests.splice(0), 1_000);
await Deno.stdout.write(new TextEncoder().encode(`${fake.url}\n`));
