/**
 * @module Headless Debian Chromium driven by playwright-core, for tests that need a real browser
 * (the playground, CORS from another origin, the docs page). Tests use {@linkcode browserTest},
 * which skips with a message saying how to install Chromium when it is missing.
 */
// Test-only dependency, imported here rather than in deno.json so `deno task start` never
// downloads it.
// deno-lint-ignore no-import-prefix
import { type Browser, chromium } from "npm:playwright-core@1.65.1";

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = Deno.env.get("SIMULACRA_CHROMIUM") ?? "/usr/bin/chromium";

/** Flags for a closed network: no background traffic, no sandbox as root, no GPU. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

function chromiumInstalled(): boolean {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
}

/** True when a browser test can run here. */
export const hasChromium: boolean = chromiumInstalled();

if (!hasChromium) {
  // deno-lint-ignore no-console
  console.warn(
    `browser tests skipped: no Chromium at ${CHROMIUM_PATH} ` +
      "(install it with `sudo apt-get install -y chromium`, or set SIMULACRA_CHROMIUM)",
  );
}

/** Launches headless Chromium; close it with `await using` or `browser.close()`. */
export async function launchChromium(): Promise<Browser & AsyncDisposable> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return Object.assign(browser, {
    [Symbol.asyncDispose]: () => browser.close(),
  });
}

/**
 * Registers a Deno test that runs in a real browser, ignored (with the warning above) when
 * Chromium is not installed. Resources are not sanitized: the browser's pipes outlive the test
 * body by a tick.
 */
export function browserTest(name: string, fn: (browser: Browser) => Promise<void>): void {
  Deno.test({
    name,
    ignore: !hasChromium,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using browser = await launchChromium();
      await fn(browser);
    },
  });
}
