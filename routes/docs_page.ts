/**
 * @module The API reference at `/docs`: Swagger UI rendering /openapi.json, with a try-it console.
 * Every file comes from this server (the renderer is compiled in as strings, see
 * `deno task docs:build`), so the page works offline and on both entries, Deno and Workers.
 */
import { Hono } from "hono";
import type { AppEnv } from "./app_env.ts";
import { errorBody } from "./errors.ts";
import { DOCS_ASSETS, SWAGGER_UI_VERSION } from "./docs_assets.generated.ts";
import { asOpenApi30 } from "./docs_openapi30.ts";

const ASSETS_PATH = "/docs/assets/";
const byName = new Map(Object.values(DOCS_ASSETS).map((asset) => [asset.name, asset]));
const assetUrl = (file: string) => ASSETS_PATH + DOCS_ASSETS[file].name;

/**
 * The page may load and call only this server. Swagger UI sets styles through the DOM and uses
 * data: SVG icons; nothing else needs more than 'self'.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Swagger UI's settings: schemas shown expanded (not only examples), no outside validator. It is
 * handed the document as 3.0 (routes/docs_openapi30.ts: its 3.1 path takes seconds before it
 * lists anything), without the separate Schemas section (each operation shows its own) and
 * without syntax highlighting of bodies, so the operations are listed within a second or two.
 */
const INIT_SCRIPT = `"use strict";
${asOpenApi30}
const root = document.getElementById("swagger-ui");
fetch("/openapi.json")
  .then((res) => {
    if (!res.ok) throw new Error("HTTP " + res.status);
    return res.json();
  })
  .then((spec) => {
    // The console calls the server that served this page, even behind a proxy that changes
    // the origin the server sees.
    spec.servers = [{ url: location.origin, description: "This server" }];
    window.ui = SwaggerUIBundle({
      spec: asOpenApi30(spec),
      domNode: root,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      deepLinking: true,
      syntaxHighlight: false,
      displayRequestDuration: true,
      filter: true,
      defaultModelRendering: "model",
      defaultModelExpandDepth: 4,
      defaultModelsExpandDepth: -1,
      validatorUrl: null,
    });
  })
  .catch((err) => {
    root.textContent = "Cannot load /openapi.json: " + err.message;
  });
`;

function docsHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Simulacra API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl("swagger-ui.css")}">
<link rel="preload" href="/openapi.json" as="fetch" crossorigin="anonymous">
</head>
<body>
<div id="swagger-ui"><noscript>The API reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript></div>
<div class="swagger-ui"><div class="wrapper"><p>
<a href="/openapi.json">openapi.json</a> · <a href="/">playground</a> ·
rendered by Swagger UI ${SWAGGER_UI_VERSION} (<a href="${assetUrl("LICENSE")}">Apache-2.0</a>,
<a href="${assetUrl("NOTICE")}">notice</a>, <a href="${
    assetUrl("swagger-ui-bundle.js.LICENSE.txt")
  }">third-party licences</a>)
</p></div></div>
<script src="${assetUrl("swagger-ui-bundle.js")}"></script>
<script src="/docs/init.js"></script>
</body></html>`;
}

/** `/docs`, its settings script and the renderer's files (cached for a year: hashed names). */
export function docsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const page = docsHtml();

  app.get("/docs", (c) =>
    c.html(page, 200, {
      "cache-control": "no-cache",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
    }));

  app.get("/docs/init.js", (c) =>
    c.body(INIT_SCRIPT, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    }));

  app.get(`${ASSETS_PATH}:name`, (c) => {
    const asset = byName.get(c.req.param("name"));
    if (!asset) {
      return c.json(
        errorBody(
          "route_not_found",
          `Cannot find docs asset "${c.req.param("name")}": reload /docs for the current names`,
        ),
        404,
      );
    }
    const headers = {
      "content-type": asset.type,
      "cache-control": "public, max-age=31536000, immutable",
      etag: `"${asset.sha256}"`,
      "x-content-type-options": "nosniff",
    };
    if (c.req.header("if-none-match") === headers.etag) return c.body(null, 304, headers);
    return c.body(asset.body, 200, headers);
  });
  return app;
}
