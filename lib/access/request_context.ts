/**
 * @module The API key a request runs for, visible to code far below the route (the model
 * meter attributes spend to it) without threading it through every core function.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What the current request is, for accounting. */
export interface RequestContext {
  /** The API key's id; undefined for the admin key. */
  keyId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it awaits) as the given request. */
export function runInRequest<T>(context: RequestContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

/** The current request's context, or undefined outside a request (e.g. the cron). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
