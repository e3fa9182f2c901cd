/**
 * @module The playground's only way to the server: the public HTTP API, same origin. Errors
 * carry the API's own code and message; a 401/403 asks for the admin key once per tab session.
 */

const KEY_STORAGE = "simulacra.adminKey";

/** A failed request, with the API's error code and message. */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Asks the person for the admin key; resolves to the key or null. Set by main.js. */
let askForKey = null;

/** Installs the function that asks for the admin key (a dialog). */
export function onKeyNeeded(fn) {
  askForKey = fn;
}

function authHeaders() {
  const key = sessionStorage.getItem(KEY_STORAGE);
  return key ? { authorization: `Bearer ${key}` } : {};
}

async function readError(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    // not JSON: fall through to a generic message
  }
  const e = body?.error;
  if (e && typeof e.message === "string") {
    return new ApiError(res.status, e.code ?? "error", e.message, e.details);
  }
  return new ApiError(res.status, "http_error", `The server answered HTTP ${res.status}`);
}

/** Asks for a key after a 401/403; true when a new key was given. */
async function renewKey(error) {
  if (!askForKey) return false;
  const key = await askForKey(error.message);
  if (!key) return false;
  sessionStorage.setItem(KEY_STORAGE, key);
  return true;
}

/**
 * Calls the API. `body` is sent as JSON; `raw` with `contentType` (a card file) is sent as is.
 * @returns the parsed JSON answer
 * @throws ApiError with the API's message
 */
export async function api(method, path, { body, raw, contentType, signal } = {}) {
  for (let attempt = 0;; attempt++) {
    const headers = { accept: "application/json", ...authHeaders() };
    let payload;
    if (raw !== undefined) {
      payload = raw;
      headers["content-type"] = contentType;
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] = "application/json";
    }
    let res;
    try {
      res = await fetch(path, { method, headers, body: payload, signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ApiError(0, "network_error", `Cannot reach the server: ${err.message}`);
    }
    if (res.ok) return res.status === 204 ? null : await res.json();
    const error = await readError(res);
    if ((res.status === 401 || res.status === 403) && attempt < 3 && await renewKey(error)) {
      continue;
    }
    throw error;
  }
}

/**
 * Every item of a list (`{[key]: […], next?}`), following `next` cursors when the API pages it.
 * @throws ApiError
 */
export async function listAll(path, key, options = {}) {
  const items = [];
  let cursor = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page = await api(
      "GET",
      cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path,
      options,
    );
    items.push(...page[key]);
    cursor = typeof page.next === "string" && page.next ? page.next : null;
  } while (cursor);
  return items;
}

/** `/v1/worlds/{world}` plus a tail, with the id escaped. */
export function worldPath(worldId, tail = "") {
  return `/v1/worlds/${encodeURIComponent(worldId)}${tail}`;
}

/** `/v1/worlds/{world}/agents/{agent}` plus a tail. */
export function agentPath(worldId, agentId, tail = "") {
  return worldPath(worldId, `/agents/${encodeURIComponent(agentId)}${tail}`);
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Parses one SSE frame; null for comments (keep-alives). */
function parseFrame(frame) {
  const data = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
  }
  if (data.length === 0) return null;
  try {
    return JSON.parse(data.join("\n"));
  } catch {
    return null;
  }
}

/**
 * Follows the world's SSE event stream from `after`, reconnecting from the last seq seen.
 * Read with fetch rather than EventSource so the admin key travels in a header, never a URL.
 * `onEvents(batch)` gets events oldest first; `onStatus(state, message?)` gets "live",
 * "reconnecting" or "error". Stops when `signal` aborts.
 */
export function followEvents(worldId, { after = 0, onEvents, onStatus, signal }) {
  let last = after;
  (async () => {
    while (!signal.aborted) {
      try {
        const res = await fetch(worldPath(worldId, `/events?after=${last}`), {
          headers: { accept: "text/event-stream", ...authHeaders() },
          signal,
        });
        if (!res.ok) {
          const error = await readError(res);
          onStatus("error", error.message);
          if ((res.status === 401 || res.status === 403) && await renewKey(error)) continue;
          if (res.status === 404) return;
          await sleep(5000, signal);
          continue;
        }
        onStatus("live");
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replaceAll("\r\n", "\n");
          const batch = [];
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const event = parseFrame(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (event && typeof event.seq === "number" && event.seq > last) {
              last = event.seq;
              batch.push(event);
            }
          }
          if (batch.length > 0) onEvents(batch);
        }
        if (!signal.aborted) onStatus("reconnecting");
      } catch (err) {
        if (signal.aborted) return;
        onStatus("reconnecting", err.message);
      }
      await sleep(1500, signal);
    }
  })();
}
