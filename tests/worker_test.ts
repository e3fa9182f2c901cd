/**
 * The Workers entry, built the way users deploy it (`wrangler deploy --dry-run`, pinned 4.86.0)
 * and run in miniflare's workerd against the hosted backend (local gateway → real redis-server).
 */
import assert from "node:assert/strict";
// Test-only dependency, imported here rather than in deno.json so `deno task start` never
// downloads workerd.
// deno-lint-ignore no-import-prefix
import { Miniflare } from "npm:miniflare@4.20260426.0";
import { startRedisServer } from "../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../dev/upstash_vector_server.ts";
import { hasRedisServer } from "./_helpers/backends.ts";

const ADMIN_KEY = "worker-admin-key-0123456789";

async function buildWorker(outdir: string): Promise<string> {
  const out = await new Deno.Command("npx", {
    args: ["-y", "wrangler@4.86.0", "deploy", "--dry-run", "--outdir", outdir],
    env: { WRANGLER_SEND_METRICS: "false", CI: "true" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`wrangler build failed:\n${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  }
  return `${outdir}/worker.js`;
}

/** Cloudflare's limit on a Worker's gzipped size on the free plan. */
const FREE_PLAN_GZIP_LIMIT = 3 * 1024 * 1024;

/** The docs page and every file it names come from the Worker, with the renderer compiled in. */
async function assertDocsServed(mf: Miniflare, scriptPath: string): Promise<void> {
  const docs = await mf.dispatchFetch("http://localhost/docs");
  assert.equal(docs.status, 200);
  const urls = [...(await docs.text()).matchAll(/\b(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) =>
    m[1]
  );
  assert.ok(urls.some((url) => /swagger-ui-bundle\.[0-9a-f]{8}\.js$/.test(url)), urls.join());
  for (const url of urls) {
    const asset = await mf.dispatchFetch(`http://localhost${url}`);
    assert.equal(asset.status, 200, url);
    assert.match(asset.headers.get("content-type")!, /^text\/(javascript|css|plain)/, url);
    assert.ok((await asset.text()).length > 0, url);
  }
  const gzipped = await new Response(
    (await Deno.open(scriptPath)).readable.pipeThrough(new CompressionStream("gzip")),
  ).arrayBuffer();
  assert.ok(
    gzipped.byteLength < FREE_PLAN_GZIP_LIMIT,
    `the Worker is ${gzipped.byteLength} bytes gzipped, over the free plan's 3 MiB`,
  );
}

const redisPresent = await hasRedisServer();
if (!redisPresent) {
  // deno-lint-ignore no-console
  console.warn(
    "redis-server is not installed: the Workers entry test needs the hosted backend and is skipped",
  );
}

Deno.test({
  name:
    "worker.ts serves /health and /docs on Upstash and its scheduled handler advances a world once per minute, even when fired twice",
  ignore: !redisPresent,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const outdir = await Deno.makeTempDir();
    const redis = await startRedisServer();
    const gateway = await startUpstashRedisGateway({ redisUrl: redis.url, token: "rtoken" });
    const vector = await startUpstashVectorServer({ token: "vtoken", dimensions: 384 });
    let mf: Miniflare | undefined;
    try {
      const scriptPath = await buildWorker(outdir);
      mf = new Miniflare({
        modules: true,
        scriptPath,
        modulesRoot: outdir,
        compatibilityDate: "2026-04-01",
        compatibilityFlags: ["nodejs_compat"],
        bindings: {
          UPSTASH_REDIS_REST_URL: gateway.url,
          UPSTASH_REDIS_REST_TOKEN: "rtoken",
          UPSTASH_VECTOR_REST_URL: vector.url,
          UPSTASH_VECTOR_REST_TOKEN: "vtoken",
          SIMULACRA_ADMIN_KEY: ADMIN_KEY,
        },
      });
      const health = await (await mf.dispatchFetch("http://localhost/health")).json() as {
        storage: string;
        model: { mode: string };
        cron: unknown;
      };
      assert.equal(health.storage, "upstash");
      assert.equal(health.model.mode, "offline");
      assert.equal(health.cron, null);

      const denied = await mf.dispatchFetch("http://localhost/v1/worlds");
      assert.equal(denied.status, 401);
      assert.equal(
        ((await denied.json()) as { error: { code: string } }).error.code,
        "unauthorized",
      );

      await assertDocsServed(mf, scriptPath);

      const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
      const created = await mf.dispatchFetch("http://localhost/v1/worlds", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({
          id: "cron-town",
          name: "Cron town",
          startTime: "2023-02-13T07:00:00",
        }),
      });
      assert.equal(created.status, 201);
      await created.body?.cancel();
      const clock = async () =>
        ((await (await mf!.dispatchFetch("http://localhost/v1/worlds/cron-town", {
          headers: admin,
        })).json()) as { clock: { now: string } }).clock.now;

      // miniflare's Fetcher type comes from workers-types, which Deno's checker does not load.
      const worker = (await mf.getWorker()) as unknown as {
        scheduled(o: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
      };
      // The platform may deliver one minute twice: the world advances once.
      const scheduledTime = new Date("2026-11-22T10:00:00Z");
      const result = await worker.scheduled({ scheduledTime, cron: "* * * * *" });
      assert.equal(result.outcome, "ok");
      assert.equal(await clock(), "2023-02-13T07:10:00");
      const duplicate = await worker.scheduled({ scheduledTime, cron: "* * * * *" });
      assert.equal(duplicate.outcome, "ok");
      assert.equal(await clock(), "2023-02-13T07:10:00", "a duplicate delivery does not advance");
      const after = await (await mf.dispatchFetch("http://localhost/health")).json() as {
        cron: { lastScheduledAt: string; runs: number };
      };
      assert.deepEqual(after.cron, { lastScheduledAt: scheduledTime.toISOString(), runs: 2 });
      const nextMinute = new Date("2026-11-22T10:01:00Z");
      await worker.scheduled({ scheduledTime: nextMinute, cron: "* * * * *" });
      assert.equal(await clock(), "2023-02-13T07:20:00");
    } finally {
      await mf?.dispose();
      await gateway.close();
      await vector.close();
      await redis.close();
      await Deno.remove(outdir, { recursive: true });
    }
  },
});

Deno.test("worker.ts answers a JSON config_error when Upstash is not configured", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const { default: worker } = await import("../worker.ts");
  const res = await worker.fetch(new Request("http://localhost/health"), {});
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.equal(body.error.code, "config_error");
  assert.match(body.error.message, /Cloudflare Workers have no local disk/);
});
