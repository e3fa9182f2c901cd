/**
 * @module A playground page on a real server (main.ts's startServer on a fresh data dir) in
 * headless Chromium, watched for what must never happen: a request to any other host, a console
 * error, an uncaught exception.
 */
// Test-only dependency (types only), pinned like tests/_helpers/browser.ts.
// deno-lint-ignore no-import-prefix
import type { Browser, Page } from "npm:playwright-core@1.65.1";
import { silentLogger } from "../../lib/logger.ts";
import { type RunningServer, startServer } from "../../main.ts";

/** A served page and what it did. */
export interface PlaygroundSession extends AsyncDisposable {
  server: RunningServer;
  page: Page;
  /** Requests to another origin (each was blocked). */
  outside: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Every request URL the page made. */
  requests: string[];
  /** "status path" of every answer of 400 or more (Chromium logs each as a console error). */
  failed: string[];
}

/** Options for {@linkcode openPlayground}. */
export interface PlaygroundOptions {
  /** Extra server variables (e.g. SIMULACRA_ADMIN_KEY). */
  env?: Record<string, string>;
  /** @default 1280×800 */
  viewport?: { width: number; height: number };
}

/** Starts a server and opens a page on it that can reach that server only. */
export async function openPlayground(
  browser: Browser,
  options: PlaygroundOptions = {},
): Promise<PlaygroundSession> {
  const dataDir = await Deno.makeTempDir({ prefix: "simulacra-playground-" });
  const server = await startServer(
    { SIMULACRA_DATA_DIR: dataDir, ...options.env },
    { logger: silentLogger, cron: () => {}, port: 0, announce: () => {} },
  );
  const origin = new URL(server.url).origin;
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
  });
  const outside: string[] = [];
  const errors: string[] = [];
  const requests: string[] = [];
  const failed: string[] = [];
  // Every request goes through here: the server's own are let through, any other is refused.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requests.push(url);
    if (new URL(url).origin === origin) return route.continue();
    outside.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
  });
  return {
    server,
    page,
    outside,
    errors,
    requests,
    failed,
    async [Symbol.asyncDispose]() {
      await context.close();
      await server.shutdown();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}
