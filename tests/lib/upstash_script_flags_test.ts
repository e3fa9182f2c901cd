/**
 * `@upstash/ratelimit`'s scripts carry Upstash's shebang flag `allow-key-locking`, which a stock
 * redis-server (7.0 here) refuses: behind a REST proxy that passes it on, every rate-limited
 * request would fail. Opening the hosted store finds that out at start-up and says what to do;
 * behind the dev gateway, which drops the flag, it opens.
 */
import assert from "node:assert/strict";
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import { SimulacraError } from "../../src/domain/errors.ts";
import { hasRedisServer } from "../_helpers/backends.ts";
import { rejectionOf } from "../_helpers/rejection.ts";

const TOKEN = "flags-token";

Deno.test({
  name:
    "openUpstashStorage() fails with config_error naming the fix on a Redis that refuses allow-key-locking",
  ignore: !(await hasRedisServer()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const redis = await startRedisServer();
    const vector = await startUpstashVectorServer({ token: TOKEN, dimensions: 8 });
    const open = (redisUrl: string) =>
      openUpstashStorage({
        redisUrl,
        redisToken: TOKEN,
        vectorUrl: vector.url,
        vectorToken: TOKEN,
        keyPrefix: "flags",
      });
    const stock = await startUpstashRedisGateway({
      redisUrl: redis.url,
      token: TOKEN,
      keepUpstashFlags: true,
    });
    const dev = await startUpstashRedisGateway({ redisUrl: redis.url, token: TOKEN });
    try {
      const error = await rejectionOf(open(stock.url), SimulacraError);
      assert.equal(error.code, "config_error");
      assert.match(error.message, /allow-key-locking/);
      assert.match(error.message, /@upstash\/ratelimit/);
      assert.match(error.message, /deno task upstash:local/);

      const storage = await open(dev.url);
      const decision = await storage.rateLimits.limit("k", { requests: 2, windowMs: 60_000 });
      assert.equal(decision.success, true);
      await storage.close();
    } finally {
      await stock.close();
      await dev.close();
      await vector.close();
      await redis.close();
    }
  },
});
