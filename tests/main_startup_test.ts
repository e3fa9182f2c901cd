import assert from "node:assert/strict";
import { jsonLogger, silentLogger } from "../lib/logger.ts";
import { startServer } from "../main.ts";

async function started(options: { terminal: boolean }) {
  const dataDir = await Deno.makeTempDir();
  const banners: string[] = [];
  const lines: string[] = [];
  const server = await startServer({ SIMULACRA_DATA_DIR: dataDir }, {
    port: 0,
    cron: () => {},
    announce: (banner) => banners.push(banner),
    logger: options.terminal ? silentLogger : jsonLogger({ write: (line) => lines.push(line) }),
    terminal: options.terminal,
  });
  await server.shutdown();
  await Deno.remove(dataDir, { recursive: true });
  return { url: server.url, banners, lines, dataDir };
}

Deno.test("startServer() on a terminal prints a short banner: URL, storage, model, docs, playground, time", async () => {
  const { url, banners, dataDir } = await started({ terminal: true });
  assert.equal(banners.length, 1);
  const banner = banners[0];
  assert.ok(banner.split("\n").length <= 14, "short");
  assert.match(banner, new RegExp(`API +${url}`));
  assert.match(banner, new RegExp(`Docs +${url}/docs`));
  assert.match(banner, new RegExp(`Playground +${url}/`));
  assert.match(banner, new RegExp(`Storage +embedded at ${dataDir}`));
  assert.match(banner, /Model +OFFLINE, a rule-based stand-in/);
  assert.match(banner, /Time +each real minute the cron advances/);
  assert.match(banner, /"mode": "manual"/);
  assert.doesNotMatch(banner, /^\{/m, "not JSON");
});

Deno.test("startServer() off a terminal logs one JSON line with the same facts and no escaped newlines", async () => {
  const { url, banners, lines } = await started({ terminal: false });
  assert.equal(banners.length, 0);
  assert.equal(lines.length, 1);
  assert.doesNotMatch(lines[0], /\\n/, "no literal \\n inside the JSON line");
  const line = JSON.parse(lines[0]);
  assert.equal(line.level, "info");
  assert.match(line.msg, /^Simulacra \S+ listening on http/);
  assert.equal(line.url, url);
  assert.equal(line.docs, `${url}/docs`);
  assert.equal(line.playground, `${url}/`);
  assert.equal(line.offline, true);
  assert.match(line.storage, /^embedded at /);
  assert.match(line.clock, /manual/);
  assert.match(line.time, /^\d{4}-\d\d-\d\dT/, "the log line keeps its own timestamp");
});
