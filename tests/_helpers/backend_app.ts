/** @module One backend's app for HTTP tests: fresh deps on a fresh store, disposed after use. */
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { Backend } from "./backends.ts";
import { makeTestDeps } from "./test_deps.ts";
import { TOWNS } from "../../towns/mod.ts";
import { StreamEnds } from "./sse.ts";

/** The app the route tests drive. */
export type App = ReturnType<typeof createApp>;

/**
 * Deno's sanitizers for a backend's tests: the hosted backend's HTTP clients keep connections
 * alive across tests, so only the embedded one is sanitized.
 */
export function sanitizersFor(
  backend: Backend,
): { sanitizeOps: boolean; sanitizeResources: boolean } {
  const on = backend.name === "embedded";
  return { sanitizeOps: on, sanitizeResources: on };
}

/** Runs `fn` with an app over fresh deps on the backend; the store is closed afterwards. */
export async function withBackendApp(
  backend: Backend,
  fn: (app: App, deps: Deps) => Promise<void>,
  overrides: Partial<Deps> = {},
): Promise<void> {
  await using deps = await makeTestDeps({ storage: await backend.open(), ...overrides });
  const ends = new StreamEnds();
  const app = createApp(deps, { logger: silentLogger, towns: TOWNS, onEventStreamEnd: ends.hook });
  streamEnds.set(app, ends);
  await fn(app, deps);
}

const streamEnds = new WeakMap<App, StreamEnds>();

/**
 * Resolves once `count` event streams of an app made by {@linkcode withBackendApp} are over
 * (their clients went away and their feeds stopped).
 */
export function eventStreamsEnded(app: App, count: number): Promise<void> {
  return streamEnds.get(app)!.ended(count);
}

/** {@linkcode withBackendApp} on one backend, for the tests of a backend loop. */
export function appOn(
  backend: Backend,
): (fn: (app: App, deps: Deps) => Promise<void>, overrides?: Partial<Deps>) => Promise<void> {
  return (fn, overrides = {}) => withBackendApp(backend, fn, overrides);
}
