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
 * Sends a request with the admin key, asking for the key again after a 401/403.
 * @returns the successful response
 * @throws ApiError with the API's message
 */
async function send(method, path, { body, raw, contentType, signal, accept }) {
  for (let attempt = 0;; attempt++) {
    const headers = { accept, ...authHeaders() };
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
    if (res.ok) return res;
    const error = await readError(res);
    if ((res.status === 401 || res.status === 403) && attempt < 3 && await renewKey(error)) {
      continue;
    }
    throw error;
  }
}

/**
 * Calls the API. `body` is sent as JSON; `raw` with `contentType` (a card file) is sent as is.
 * @returns the parsed JSON answer
 * @throws ApiError with the API's message
 */
export async function api(method, path, options = {}) {
  const res = await send(method, path, { ...options, accept: "application/json" });
  return res.status === 204 ? null : await res.json();
}

/**
 * Calls an API route that streams server-sent events (`Accept: text/event-stream`): each `delta`
 * event's data goes to `onDelta` as it arrives; the `done` event's data is the answer.
 * @returns the `done` event's data
 * @throws ApiError: the API's error, before the stream or as its `error` event
 */
export async function apiStream(method, path, { body, onDelta, signal }) {
  const res = await send(method, path, { body, signal, accept: "text/event-stream" });
  let result;
  await readFrames(res, (frames) => {
    for (const frame of frames) {
      if (frame.event === "delta") onDelta(frame.data);
      else if (frame.event === "done") result = frame.data;
      else if (frame.event === "error") {
        const e = frame.data?.error ?? {};
        throw new ApiError(0, e.code ?? "error", e.message ?? "The reply failed", e.details);
      }
    }
  });
  if (result === undefined) {
    throw new ApiError(0, "network_error", "The reply stream ended before the reply was complete");
  }
  return result;
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

/** Parses one SSE frame into its event name and JSON data; null for comments (keep-alives). */
function parseFrame(frame) {
  let event = "message";
  const data = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
  }
  if (data.length === 0) return null;
  try {
    return { event, data: JSON.parse(data.join("\n")) };
  } catch {
    return null;
  }
}

/** Reads an SSE body to its end, handing `onFrames` the frames of each piece as it arrives. */
async function readFrames(res, onFrames) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replaceAll("\r\n", "\n");
    const frames = [];
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame) frames.push(frame);
    }
    if (frames.length > 0) onFrames(frames);
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
        await readFrames(res, (frames) => {
          const batch = [];
          for (const { data: event } of frames) {
            if (typeof event?.seq === "number" && event.seq > last) {
              last = event.seq;
              batch.push(event);
            }
          }
          if (batch.length > 0) onEvents(batch);
        });
        if (!signal.aborted) onStatus("reconnecting");
      } catch (err) {
        if (signal.aborted) return;
        onStatus("reconnecting", err.message);
      }
      await sleep(1500, signal);
    }
  })();
}
