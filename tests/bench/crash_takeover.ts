/**
 * @module How long a crashed coordinator's tick takes to heal (issue 15: within 60 s), measured
 * rather than only bounded as `tests/crash_test.ts` does. Each run starts `main.ts` on a fresh
 * data directory with the 3-agent fixture town behind the fake OpenAI server at 300 ms per
 * call, starts a queued tick (`?wait=false`), kills the server with SIGKILL once the steps are
 * calling the model, restarts it on the same data and polls the tick until it is done.
 * Run: `deno run -A tests/bench/crash_takeover.ts [--runs 3]`.
 */
import { parseArgs } from "node:util";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { startMain } from "../_helpers/main_process.ts";
import { RESIDENTS, TOWN } from "../src/domain/_town_fixture.ts";

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const runs = Number(values.runs ?? 3);

async function send(url: string, method: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok && res.status !== 202) throw new Error(`${method} ${url}: ${JSON.stringify(json)}`);
  return json;
}

/** One crash: milliseconds from the kill until the restarted server answers, and until done. */
async function crashOnce(): Promise<{ ready: number; healed: number }> {
  await using fake = await startFakeOpenAi({ latencyMs: 300 });
  const dir = await Deno.makeTempDir();
  const env = { SIMULACRA_DATA_DIR: dir, OPENAI_BASE_URL: fake.url, SIMULACRA_MODEL: "fake-main" };
  let server = await startMain(env);
  try {
    await send(`${server.url}/v1/worlds`, "POST", {
      id: "heal",
      name: "Heal",
      startTime: "2023-02-13T06:50:00",
    });
    await send(`${server.url}/v1/worlds/heal/environment`, "PUT", TOWN);
    for (const resident of RESIDENTS) {
      await send(`${server.url}/v1/worlds/heal/agents`, "POST", resident);
    }
    await send(`${server.url}/v1/worlds/heal/tick?wait=false`, "POST", { tickId: "k1" });
    const before = fake.requests.length;
    // Real time: the benchmark times a real server process being killed and healing.
    while (fake.requests.length < before + 3) await new Promise((r) => setTimeout(r, 50));
    await server.kill();
    const killedAt = performance.now();
    server = await startMain(env);
    const ready = performance.now() - killedAt;
    for (;;) {
      const status = await send(`${server.url}/v1/worlds/heal/ticks/k1`, "GET");
      if (status.status === "done") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return { ready, healed: performance.now() - killedAt };
  } finally {
    await server.kill();
    await Deno.remove(dir, { recursive: true });
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
for (let run = 1; run <= runs; run++) {
  const { ready, healed } = await crashOnce();
  // deno-lint-ignore no-console
  console.log(
    `run ${run}: killed → restarted server answers ${seconds(ready)} s, → tick done ${
      seconds(healed)
    } s`,
  );
}
