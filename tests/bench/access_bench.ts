/**
 * @module Benchmarks what access control adds to a request: `GET /v1/worlds/{world}` through the
 * whole app in process, with no admin key, with the admin key, with an API key (a key read, its
 * SHA-256, and one rate-limit window), and a write with an API key (plus one audit append), on
 * the embedded backend and on the hosted one (Upstash clients → the local gateway → a real
 * redis-server, so the numbers are round trips on loopback, not Upstash's latency).
 *
 * Run with `deno bench -A tests/bench/access_bench.ts`.
 */
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const ADMIN = "admin-key-0123456789abcdef";
const { backends, close } = await startBackends();

for (const backend of backends) {
  const deps = await makeTestDeps({ storage: await backend.open() });
  const open = createApp(deps, { logger: silentLogger });
  const guarded = createApp(deps, {
    logger: silentLogger,
    adminKey: ADMIN,
    keyRateLimit: { requests: 1_000_000_000, perSeconds: 60 },
  });
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  await guarded.request("/v1/worlds", {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ id: "smallville", name: "S", startTime: "2023-02-13T07:00:00" }),
  });
  await guarded.request("/v1/worlds/smallville/environment", {
    method: "PUT",
    headers: admin,
    body: JSON.stringify({
      areas: [{
        name: "Hobbs Cafe",
        subAreas: [{ name: "kitchen", objects: [{ name: "stove" }] }],
      }],
    }),
  });
  const created = await guarded.request("/v1/keys", {
    method: "POST",
    headers: admin,
    body: JSON.stringify({
      name: "bench",
      scope: { worlds: ["smallville"] },
      permissions: ["read", "direct"],
    }),
  });
  const key = { authorization: `Bearer ${(await created.json()).secret}` };
  const read = (app: typeof open, headers: Record<string, string>) => async () => {
    const res = await app.request("/v1/worlds/smallville", { headers });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    await res.body?.cancel();
  };
  const group = `access (${backend.name})`;
  Deno.bench(
    `${backend.name}: GET a world, no admin key`,
    { group, baseline: true },
    read(open, {}),
  );
  Deno.bench(`${backend.name}: GET a world, admin key`, { group }, read(guarded, admin));
  Deno.bench(`${backend.name}: GET a world, API key`, { group }, read(guarded, key));
  Deno.bench(`${backend.name}: PATCH an object, API key (+ audit)`, { group }, async () => {
    const res = await guarded.request("/v1/worlds/smallville/objects", {
      method: "PATCH",
      headers: { ...key, "content-type": "application/json" },
      body: JSON.stringify({ path: "Hobbs Cafe:kitchen:stove", state: "off" }),
    });
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    await res.body?.cancel();
  });
}

globalThis.addEventListener("unload", () => void close());
