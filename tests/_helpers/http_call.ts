/** @module One JSON request to an app in process, for HTTP-level tests. */

/** Anything with Hono's `request()`. */
export interface RequestTarget {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** Sends `body` as JSON (when given) and returns the status and the parsed JSON answer. */
export async function call(
  app: RequestTarget,
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Posts a world archive (NDJSON text) to `POST /v1/worlds/import{query}`. */
export async function importArchive(
  app: RequestTarget,
  text: string,
  query = "",
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await app.request(`/v1/worlds/import${query}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: text,
  });
  return { status: res.status, body: await res.json() };
}
