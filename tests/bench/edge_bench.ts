// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module The request edge under abuse (issue 27): failed-auth bursts and slow clients.
 *
 * - On both backends, in process: 400 wrong keys from one address, 64 at a time (how many were
 *   answered 403 and how many keys looked up, against 10 a minute), and 64 right keys at once
 *   from another address (all should pass).
 * - The Deno entry on a real socket: 300 connections each sending half a JSON body and
 *   holding it, `/health` timed every second meanwhile, and when the held ones are answered.
 *
 * Run with `deno run -A --lock=deno.dev.lock tests/bench/edge_bench.ts [timeoutMs=10000]`.
 */
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { startServer } from "../../main.ts";
import type { DocumentKey } from "../../src/ports/mod.ts";
import { startBackends } from "../_helpers/backends.ts";
import { QUIET, withDataDir } from "../_helpers/in_process_server.ts";
import { holdHalfBodies, readAnswer, timeHealth } from "../_helpers/raw_http.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const ADMIN = "admin-key-0123456789abcdef";
const timeoutMs = Number(Deno.args[0] ?? 10_000);

const { backends, close } = await startBackends();
for (const backend of backends) {
  const storage = await backend.open();
  let lookups = 0;
  const get = storage.documents.get.bind(storage.documents);
  storage.documents.get = ((key: DocumentKey) => {
    if (key.collection === "api_keys") lookups++;
    return get(key);
  }) as typeof get;
  await using deps = await makeTestDeps({ storage });
  const app = createApp(deps, { logger: silentLogger, adminKey: ADMIN });
  const made = await app.request("/v1/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", scope: { worlds: ["w"] }, permissions: ["read"] }),
  });
  const secret: string = (await made.json()).secret;
  const status = async (bearer: string, client: string) => {
    const res = await app.request("/v1/worlds", {
      headers: { authorization: `Bearer ${bearer}` },
    }, { remoteAddr: { hostname: client } });
    await res.body?.cancel();
    return res.status;
  };
  let started = performance.now();
  const right = await Promise.all(Array.from({ length: 64 }, () => status(secret, "192.0.2.1")));
  const rightMs = performance.now() - started;
  lookups = 0;
  const wrong: number[] = [];
  let next = 0;
  started = performance.now();
  await Promise.all(Array.from({ length: 64 }, async () => {
    while (next < 400) {
      const guess = secret.slice(0, -4) + String(next++).padStart(4, "0");
      wrong.push(await status(guess, "192.0.2.2"));
    }
  }));
  const wrongMs = performance.now() - started;
  const count = (list: number[], code: number) => list.filter((s) => s === code).length;
  console.log(
    `${backend.name}: 400 wrong keys, 64 at a time: ${count(wrong, 403)} × 403, ${
      count(wrong, 429)
    } × 429, ${lookups} keys looked up, ${Math.round(wrongMs)} ms; 64 right keys at once: ${
      count(right, 200)
    } × 200, ${count(right, 429)} × 429, ${Math.round(rightMs)} ms`,
  );
}
await close();

await withDataDir(async (dataDir) => {
  const server = await startServer(
    { SIMULACRA_DATA_DIR: dataDir, SIMULACRA_BODY_TIMEOUT_MS: String(timeoutMs) },
    { ...QUIET, tickQueue: "off" },
  );
  try {
    await server.repaired;
    const port = Number(new URL(server.url).port);
    const health = async () => (await timeHealth(server.url)).ms;
    const idle = [await health(), await health(), await health()];
    const started = performance.now();
    const held = await holdHalfBodies(port, 300);
    const answered: number[] = [];
    const answers = Promise.all(held.map(async (conn) => {
      const answer = await readAnswer(conn, timeoutMs + 20_000);
      if (answer.status === 408) answered.push(performance.now() - started);
    }));
    const during: string[] = [];
    while (performance.now() - started < timeoutMs + 4_000) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const s = Math.round((performance.now() - started) / 1000);
      during.push(`${s} s: ${await health()} ms (${answered.length} answered)`);
    }
    await answers;
    console.log(`/health idle: ${idle.join(", ")} ms; with 300 held: ${during.join("; ")}`);
    answered.sort((a, b) => a - b);
    console.log(
      `408s: ${answered.length} of 300, first after ${Math.round(answered[0] ?? NaN)} ms, last ${
        Math.round(answered.at(-1) ?? NaN)
      } ms`,
    );
    for (const conn of held) {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    }
  } finally {
    await server.shutdown();
  }
});
