import assert from "node:assert/strict";
import { silentLogger } from "../lib/logger.ts";
import { startServer } from "../main.ts";
import { ConfigError } from "../src/domain/errors.ts";
import { call } from "./_helpers/http_call.ts";
import { overHttp, QUIET, withDataDir, withServer } from "./_helpers/in_process_server.ts";
import {
  createWorldHead,
  holdHalfBodies,
  openWith,
  readAnswer,
  timeHealth,
} from "./_helpers/raw_http.ts";

Deno.test("startServer() serves the API, registers the minute cron, and its handler reaches the shared tick", async () => {
  const crons: { name: string; schedule: string; handler: () => Promise<void> }[] = [];
  const cron = (name: string, schedule: string, handler: () => Promise<void>) =>
    crons.push({ name, schedule, handler });
  await withServer({ options: { cron } }, async (server) => {
    assert.equal(crons.length, 1);
    assert.equal(crons[0].schedule, "* * * * *");
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/, "no admin key: loopback only");
    const before = await (await fetch(`${server.url}/health`)).json();
    assert.equal(before.cron, null);
    await crons[0].handler();
    const after = await (await fetch(`${server.url}/health`)).json();
    assert.equal(after.cron.runs, 1);
    assert.equal(after.model.mode, "offline");
  });
});

Deno.test("startServer() keeps worlds in the data directory across restarts", async () => {
  await withDataDir(async (dataDir) => {
    const first = await startServer({ SIMULACRA_DATA_DIR: dataDir }, QUIET);
    const made = await call(overHttp(first.url), "POST", "/v1/worlds", {
      id: "kept",
      name: "Kept",
      startTime: "2023-02-13T07:00:00",
    });
    assert.equal(made.status, 201);
    await first.shutdown();

    const second = await startServer({ SIMULACRA_DATA_DIR: dataDir }, QUIET);
    const world = await (await fetch(`${second.url}/v1/worlds/kept`)).json();
    assert.equal(world.name, "Kept");
    await second.shutdown();
  });
});

Deno.test("startServer() refuses an embedder that does not match the stored vectors", async () => {
  await withDataDir(async (dataDir) => {
    const first = await startServer({ SIMULACRA_DATA_DIR: dataDir }, QUIET);
    await first.shutdown();
    await assert.rejects(
      startServer({ SIMULACRA_DATA_DIR: dataDir, SIMULACRA_EMBEDDING_DIMENSIONS: "256" }, QUIET),
      (err) =>
        err instanceof ConfigError &&
        /embedded with "local-hash-v2" \(384 dimensions\)/.test(err.message),
    );
  });
});

Deno.test("startServer() fails fast on a bad configuration", async () => {
  await assert.rejects(
    startServer({ PORT: "abc" }, { logger: silentLogger, cron: () => {} }),
    (err) => err instanceof ConfigError && /PORT must be a whole number/.test(err.message),
  );
});

Deno.test("startServer() without an admin key says so, and refuses non-loopback Host names over TCP", async () => {
  const lines: string[] = [];
  const announce = (line: string) => void lines.push(line);
  await withServer({ options: { terminal: true, announce } }, async (server) => {
    assert.match(
      lines.join("\n"),
      /no SIMULACRA_ADMIN_KEY: 127\.0\.0\.1 and loopback Host names only, every request allowed/,
    );
    // fetch() will not send another Host: speak HTTP/1.1 on the socket, as a rebound page would.
    const port = Number(new URL(server.url).port);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(
      new TextEncoder().encode(
        "GET /v1/worlds HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
      ),
    );
    const reply = await new Response(conn.readable).text();
    assert.match(reply, /^HTTP\/1\.1 403/);
    assert.match(reply, /"code":"forbidden"/);
    const local = await fetch(`${server.url}/v1/worlds`);
    assert.equal(local.status, 200);
    await local.body?.cancel();
  });
});

Deno.test("startServer() with an admin key backs off failed authentications by the connection's address", async () => {
  const admin = "admin-key-0123456789abcdef";
  await withServer({ env: { SIMULACRA_ADMIN_KEY: admin } }, async (server) => {
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      const res = await fetch(`${server.url}/v1/worlds`, {
        headers: { authorization: `Bearer wrong-${i}` },
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [...Array(10).fill(403), 429]);
    const blocked = await fetch(`${server.url}/v1/worlds`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get("retry-after")) >= 1);
    await blocked.body?.cancel();
  });
});

Deno.test("startServer() answers bodies that stop or trickle with 408 within SIMULACRA_BODY_TIMEOUT_MS, and /health stays fast meanwhile", async () => {
  const timeoutMs = 1_000;
  await withServer({ env: { SIMULACRA_BODY_TIMEOUT_MS: String(timeoutMs) } }, async (server) => {
    const port = Number(new URL(server.url).port);
    await timeHealth(server.url); // the first request of a process is slow anyway
    const started = performance.now();
    const held = await holdHalfBodies(port, 20);
    try {
      const health: number[] = [];
      for (let i = 0; i < 5; i++) {
        const { ms, status } = await timeHealth(server.url);
        assert.equal(status, 200);
        health.push(ms);
      }
      // The median, as the machine running the tests may be busy with other work.
      const median = health.toSorted((a, b) => a - b)[2];
      assert.ok(median < 250, `/health took ${health} ms`);
      const answers = await Promise.all(held.map((conn) => readAnswer(conn, 10_000)));
      const elapsed = performance.now() - started;
      for (const answer of answers) {
        assert.equal(answer.status, 408, answer.body);
        assert.equal(JSON.parse(answer.body).error.code, "request_timeout");
        assert.equal(answer.headers.connection, "close");
      }
      assert.ok(elapsed < timeoutMs + 1_500, `answered after ${Math.round(elapsed)} ms`);

      // A byte every 150 ms never waits a whole second, but its waits add up.
      const trickle = await openWith(port, `${createWorldHead(port)}{`);
      held.push(trickle);
      const answer = readAnswer(trickle, 10_000);
      let sent = 0;
      const dripping = setInterval(() => {
        sent++;
        trickle.write(new TextEncoder().encode(" ")).catch(() => {});
      }, 150);
      try {
        const trickled = await answer;
        assert.equal(trickled.status, 408, trickled.body);
        assert.ok(trickled.ms < timeoutMs + 1_500, `answered after ${Math.round(trickled.ms)} ms`);
        assert.ok(sent >= 4, "bytes kept coming");
      } finally {
        clearInterval(dripping);
      }
    } finally {
      for (const conn of held) {
        try {
          conn.close();
        } catch {
          // Closed by the wait running out.
        }
      }
    }
  });
});
