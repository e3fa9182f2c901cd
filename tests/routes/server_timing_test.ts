/**
 * Every answer carries the server's own time (`Server-Timing: app;dur=…`), and a write's audit
 * entry is stored after the answer, off its path, yet read back by `GET /v1/audit` (issue 25).
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import type { AuditEntry } from "../../src/ports/mod.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";

/** The `app` duration of a Server-Timing header, in ms; NaN when absent or malformed. */
function appDuration(res: Response): number {
  const match = res.headers.get("server-timing")?.match(/^app;dur=(\d+\.\d{2})$/);
  return match ? Number(match[1]) : NaN;
}

Deno.test("retrieve, reads, errors and not-found answers all carry Server-Timing app;dur", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const { a } = await worldWithAgent(app, {
    id: "isabella",
    name: "Isabella Rodriguez",
    description: "Isabella runs Hobbs Cafe; she is planning a party",
  });
  const retrieve = await app.request(`${a}/retrieve`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "the party", k: 10 }),
  });
  assert.equal(retrieve.status, 200);
  assert.ok((await retrieve.json()).memories.length > 0);
  const took = appDuration(retrieve);
  assert.ok(took >= 0 && took < 10_000, `Server-Timing: ${retrieve.headers.get("server-timing")}`);
  for (const [path, status] of [[a, 200], ["/health", 200], ["/v1/nowhere", 404]] as const) {
    const res = await app.request(path);
    await res.body?.cancel();
    assert.equal(res.status, status, path);
    assert.ok(appDuration(res) >= 0, `${path}: ${res.headers.get("server-timing")}`);
  }
  const bad = await app.request(`${a}/retrieve`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "" }),
  });
  await bad.body?.cancel();
  assert.equal(bad.status, 400);
  assert.ok(appDuration(bad) >= 0);
});

Deno.test("a write is answered before its audit entry is stored, and GET /v1/audit waits for it", async () => {
  await using deps = await makeTestDeps();
  const stored = deps.storage.audit;
  const gate = Promise.withResolvers<void>();
  let appended = 0;
  // An audit log whose appends wait for the gate: a write must be answered meanwhile.
  const slowAudit = {
    list: stored.list.bind(stored),
    async append(entry: Omit<AuditEntry, "id">, options: { retentionDays: number }) {
      await gate.promise;
      appended++;
      return await stored.append(entry, options);
    },
  };
  const app = createApp(
    { ...deps, storage: Object.assign(Object.create(deps.storage), { audit: slowAudit }) },
    { logger: silentLogger },
  );
  const created = await call(app, "POST", "/v1/worlds", {
    id: "oakvale",
    name: "Oakvale",
    startTime: "2023-02-13T07:00:00",
  });
  assert.equal(created.status, 201);
  assert.equal(appended, 0, "answered while the audit entry waits");
  const listing = call(app, "GET", "/v1/audit");
  let listed = false;
  listing.then(() => (listed = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(listed, false, "the audit read waits for the entry under way");
  gate.resolve();
  const page = await listing;
  assert.equal(page.status, 200);
  assert.equal(appended, 1);
  assert.deepEqual(
    page.body.entries.map((e: AuditEntry) => [e.method, e.route, e.status]),
    [["POST", "/v1/worlds", 201]],
  );
});

Deno.test("a retrieve (a POST needing only read) is a query: it leaves no audit entry", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const { a } = await worldWithAgent(app, {
    id: "isabella",
    name: "Isabella Rodriguez",
    description: "Isabella runs Hobbs Cafe",
  });
  const before = await call(app, "GET", "/v1/audit?limit=500");
  const retrieved = await call(app, "POST", `${a}/retrieve`, { query: "the cafe" });
  assert.equal(retrieved.status, 200);
  const perceived = await call(app, "POST", `${a}/perceive`, {
    observations: [{ text: "a customer orders tea" }],
  });
  assert.equal(perceived.status, 200);
  const after = await call(app, "GET", "/v1/audit?limit=500");
  const added = after.body.entries.slice(0, after.body.entries.length - before.body.entries.length);
  assert.deepEqual(added.map((e: AuditEntry) => e.route), [
    "/v1/worlds/{world}/agents/{agent}/perceive",
  ]);
});
