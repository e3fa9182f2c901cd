/** @module Serves the playground (`playground/`) at `/`: its page and files, embedded at build time. */
import { Hono } from "hono";
import { PLAYGROUND_ASSETS } from "../playground/assets.gen.ts";
import type { Asset } from "../playground/build.ts";
import type { AppEnv } from "./app_env.ts";
import { errorBody } from "./errors.ts";

/**
 * The page may talk to its own origin only: no CDN, font or analytics host can be reached even
 * if a dependency tried, and card previews are local blobs.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "script-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function serveAsset(asset: Asset, ifNoneMatch: string | undefined): Response {
  const headers = {
    "content-type": asset.type,
    etag: asset.etag,
    // Revalidated on every load, so a new build shows at once; unchanged files cost a 304.
    "cache-control": "no-cache",
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
  };
  if (ifNoneMatch === asset.etag) return new Response(null, { status: 304, headers });
  return new Response(asset.body, { status: 200, headers });
}

/** `/` (the page) and `/playground/*` (its styles and modules). */
export function playgroundRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => serveAsset(PLAYGROUND_ASSETS["index.html"], c.req.header("if-none-match")));
  app.get("/playground/*", (c) => {
    const name = c.req.path.slice("/playground/".length);
    const asset = Object.hasOwn(PLAYGROUND_ASSETS, name) ? PLAYGROUND_ASSETS[name] : undefined;
    if (!asset) {
      return c.json(
        errorBody("route_not_found", `Cannot find playground file "${name}": open / instead`),
        404,
      );
    }
    return serveAsset(asset, c.req.header("if-none-match"));
  });
  return app;
}
