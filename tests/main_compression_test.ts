/**
 * The Deno entry compresses what it serves (the docs bundle is 1.7 MB), but never an event
 * stream: gzip holds bytes back until it has enough, and SSE events must arrive one by one.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { silentLogger } from "../lib/logger.ts";
import { startServer } from "../main.ts";

/** The answer's headers and its bytes as sent (node:http does not decompress, unlike fetch). */
function onTheWire(
  url: string,
  headers: Record<string, string>,
): Promise<{ headers: Record<string, unknown>; body: Uint8Array }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      res.on(
        "end",
        () => resolve({ headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) }),
      );
      res.on("error", reject);
    }).on("error", reject).end();
  });
}

Deno.test({
  name:
    "the Deno entry gzips the docs assets and JSON for clients that accept it, and leaves event streams unbuffered",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir();
    const server = await startServer({ SIMULACRA_DATA_DIR: dataDir }, {
      port: 0,
      logger: silentLogger,
      cron: () => {},
      announce: () => {},
    });
    try {
      const page = await (await fetch(`${server.url}/docs`)).text();
      const bundle = page.match(/src="(\/docs\/assets\/swagger-ui-bundle\.[0-9a-f]{8}\.js)"/)?.[1];
      assert.ok(bundle, page);
      for (const path of [bundle, "/openapi.json"]) {
        const plain = await onTheWire(`${server.url}${path}`, {});
        assert.equal(plain.headers["content-encoding"], undefined, path);
        const gzipped = await onTheWire(`${server.url}${path}`, { "accept-encoding": "gzip" });
        assert.equal(gzipped.headers["content-encoding"], "gzip", path);
        assert.match(String(gzipped.headers["vary"]), /accept-encoding/i, path);
        assert.deepEqual(new Uint8Array(gunzipSync(gzipped.body)), plain.body, path);
        assert.ok(gzipped.body.length < plain.body.length / 3, `${path}: ${gzipped.body.length}`);
      }

      const json = { "content-type": "application/json" };
      const made = await fetch(`${server.url}/v1/worlds`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ id: "sse", name: "SSE", startTime: "2023-02-13T07:00:00" }),
      });
      assert.equal(made.status, 201);
      await made.body?.cancel();
      const ticked = await fetch(`${server.url}/v1/worlds/sse/tick`, { method: "POST" });
      assert.equal(ticked.status, 200);
      await ticked.body?.cancel();
      // The stream stays open (it follows the log): the tick must come through before it ends.
      const stream = await fetch(`${server.url}/v1/worlds/sse/events`, {
        headers: { accept: "text/event-stream", "accept-encoding": "gzip" },
      });
      assert.equal(stream.headers.get("content-type"), "text/event-stream");
      assert.equal(stream.headers.get("content-encoding"), null);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      // A guard, not a wait: a stream that never sends the event fails instead of hanging.
      const timeout = setTimeout(() => reader.cancel(), 5_000);
      while (!seen.includes("event: tick")) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      clearTimeout(timeout);
      await reader.cancel();
      assert.match(seen, /event: tick/, "the event arrived while the stream was open");
    } finally {
      await server.shutdown();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
