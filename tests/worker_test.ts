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
import { PLAYGROUND_ASSETS } from "../playground/assets.gen.ts";
import { hasRedisServer } from "./_helpers/backends.ts";
import { hasChromium, launchChromium } from "./_helpers/browser.ts";
import { RESIDENTS, TOWN } from "./src/domain/_town_fixture.ts";

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

/** What a test gets from {@linkcode withWorker}. */
interface RunningWorker {
  mf: Miniflare;
  /** The built bundle. */
  scriptPath: string;
  gatewayUrl: string;
}

/**
 * Builds the Worker and runs `fn` against it in miniflare, bound to a fresh hosted backend
 * (redis-server behind the Upstash gateway, the Upstash Vector stand-in); `options` add to the
 * Worker's configuration. Everything is closed afterwards.
 */
async function withWorker(
  options: Partial<ConstructorParameters<typeof Miniflare>[0]>,
  fn: (worker: RunningWorker) => Promise<void>,
): Promise<void> {
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
      // The Worker's own log lines: its per-request info lines are dropped so the test run reads
      // clean; anything louder (a warning, an error) still shows.
      handleStructuredLogs: ({ message }: { message: string }) => {
        // deno-lint-ignore no-console
        if (!message.includes('"level":"info"')) console.error(message);
      },
      ...options,
    });
    await fn({ mf, scriptPath, gatewayUrl: gateway.url });
  } finally {
    await mf?.dispose();
    await gateway.close();
    await vector.close();
    await redis.close();
    await Deno.remove(outdir, { recursive: true });
  }
}

/**
 * The playground in Chromium on the worker (workerd over HTTP): the admin-key prompt, the worlds
 * list, a world with its clock, one Tick and the live event stream, all from this origin only.
 */
async function playgroundOnWorker(base: string): Promise<void> {
  await using browser = await launchChromium();
  const origin = new URL(base).origin;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const outside: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", (route) => {
    if (new URL(route.request().url()).origin === origin) return route.continue();
    outside.push(route.request().url());
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
  });
  await page.goto(`${origin}/`);
  const dialog = page.getByRole("dialog", { name: "Admin key" });
  await dialog.getByLabel("Admin key").fill(ADMIN_KEY);
  await dialog.getByRole("button", { name: "Use key" }).click();
  await page.getByRole("link", { name: /Cron town/ }).click();
  await page.locator("#clock-time").getByText("07:20").waitFor();
  await page.getByText("● Live").waitFor();
  await page.getByRole("button", { name: "Tick", exact: true }).click();
  await page.locator("#clock-time").getByText("07:30").waitFor();
  await page.getByRole("tab", { name: "Timeline" }).click();
  await page.locator('.event[data-type="tick"]').first().waitFor();
  await context.close();
  assert.deepEqual(outside, [], "no request left the worker");
  // Chromium logs each 4xx as a console error; the only one is the 401 that brings up the key
  // prompt (a world without an environment answers no areas, shown as an empty state).
  assert.deepEqual(failed, ["401 /v1/worlds"]);
  assert.equal(errors.length, failed.length);
  assert.ok(errors.every((e) => e.startsWith("Failed to load resource")), errors.join("\n"));
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
    "worker.ts serves /health, /docs and the playground on Upstash, and its scheduled handler advances a world once per minute, even when fired twice",
  ignore: !redisPresent,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withWorker({ host: "127.0.0.1", port: 0 }, async ({ mf, scriptPath }) => {
      const health = await (await mf.dispatchFetch("http://localhost/health")).json() as {
        storage: string;
        model: { mode: string };
        cron: unknown;
      };
      assert.equal(health.storage, "upstash");
      assert.equal(health.model.mode, "offline");
      assert.equal(health.cron, null);

      // The playground is inside the bundle: served with no disk to read.
      const page = await mf.dispatchFetch("http://localhost/");
      assert.equal(page.status, 200);
      assert.equal(await page.text(), PLAYGROUND_ASSETS["index.html"].body);
      for (const name of ["js/main.js", "js/api.js", "style.css"]) {
        const asset = await mf.dispatchFetch(`http://localhost/playground/${name}`);
        assert.equal(asset.headers.get("content-type"), PLAYGROUND_ASSETS[name].type, name);
        assert.equal(await asset.text(), PLAYGROUND_ASSETS[name].body, name);
      }

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
        ((await (await mf.dispatchFetch("http://localhost/v1/worlds/cron-town", {
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
      if (hasChromium) await playgroundOnWorker(String(await mf.ready));
    }),
});

Deno.test({
  name:
    "worker.ts with a local queue: the scheduled handler advances three worlds, each once per cron minute, their steps consumed from the queue",
  ignore: !redisPresent,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withWorker({
      // As wrangler.toml declares them.
      queueProducers: { TICK_QUEUE: { queueName: "simulacra-ticks" } },
      queueConsumers: { "simulacra-ticks": { maxBatchSize: 10, maxBatchTimeout: 0 } },
    }, async ({ mf, gatewayUrl }) => {
      const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
      const send = async (method: string, path: string, body?: unknown) => {
        const res = await mf.dispatchFetch(`http://localhost${path}`, {
          method,
          headers: admin,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() as Record<string, unknown> };
      };
      const worlds = ["north", "east", "south"];
      for (const id of worlds) {
        const made = await send("POST", "/v1/worlds", {
          id,
          name: id,
          startTime: "2023-02-13T06:50:00",
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        assert.equal((await send("PUT", `/v1/worlds/${id}/environment`, TOWN)).status, 200);
        for (const resident of RESIDENTS) {
          const agent = await send("POST", `/v1/worlds/${id}/agents`, resident);
          assert.equal(agent.status, 201, JSON.stringify(agent.body));
        }
      }
      const worker = (await mf.getWorker()) as unknown as {
        scheduled(o: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
      };
      const clocks = async () =>
        await Promise.all(
          worlds.map(async (id) =>
            ((await send("GET", `/v1/worlds/${id}`)).body.clock as { now: string }).now
          ),
        );
      const closed = async (minute: Date) => {
        const iso = minute.toISOString();
        for (let i = 0; i < 600; i++) {
          const reads = await Promise.all(
            worlds.map((id) => send("GET", `/v1/worlds/${id}/ticks/cron:${id}:${iso}`)),
          );
          if (reads.every((r) => r.body.status === "done")) return reads.map((r) => r.body);
          // Polled in real time: Miniflare's queue runs the ticks where the test cannot hook them.
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`the ticks of ${iso} did not close`);
      };
      const first = new Date("2026-11-22T10:00:00Z");
      assert.equal(
        (await worker.scheduled({ scheduledTime: first, cron: "* * * * *" })).outcome,
        "ok",
      );
      for (const tick of await closed(first)) {
        const result = tick.result as { steps: { agentId: string; error?: string }[] };
        assert.equal(result.steps.length, 3);
        assert.ok(result.steps.every((s) => !s.error), JSON.stringify(result.steps));
      }
      assert.deepEqual(await clocks(), worlds.map(() => "2023-02-13T07:00:00"));

      const second = new Date("2026-11-22T10:01:00Z");
      await worker.scheduled({ scheduledTime: second, cron: "* * * * *" });
      await worker.scheduled({ scheduledTime: second, cron: "* * * * *" }); // delivered twice
      await closed(second);
      assert.deepEqual(await clocks(), worlds.map(() => "2023-02-13T07:10:00"), "once per minute");
      // Each agent's step was a queue message whose result its tick's close read and then
      // cleared: no step result outlives its tick.
      const keys = await fetch(gatewayUrl, {
        method: "POST",
        headers: { authorization: "Bearer rtoken" },
        body: JSON.stringify(["KEYS", "*tickstep*"]),
      }).then((r) => r.json()) as { result: string[] };
      assert.deepEqual(keys.result, []);
      for (const id of worlds) {
        const events = await send("GET", `/v1/worlds/${id}/events?limit=1000`);
        const ticks = (events.body.events as { type: string }[]).filter((e) => e.type === "tick");
        assert.equal(ticks.length, 2);
      }
    }),
});

Deno.test("worker.ts answers a JSON config_error when Upstash is not configured", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const { default: worker } = await import("../worker.ts");
  // The failure is logged as an error line; captured here so the test run reads clean.
  const logged: string[] = [];
  // deno-lint-ignore no-console
  const original = console.error;
  // deno-lint-ignore no-console
  console.error = (line: string) => logged.push(line);
  let res: Response;
  try {
    res = await worker.fetch(new Request("http://localhost/health"), {});
  } finally {
    // deno-lint-ignore no-console
    console.error = original;
  }
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.equal(body.error.code, "config_error");
  assert.match(body.error.message, /Cloudflare Workers have no local disk/);
  assert.equal(logged.length, 1);
  assert.deepEqual(
    [JSON.parse(logged[0]).level, JSON.parse(logged[0]).msg, JSON.parse(logged[0]).code],
    ["error", "start-up failed", "config_error"],
  );
});
