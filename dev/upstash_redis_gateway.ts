/**
 * @module A dev tool: an HTTP gateway that speaks the Upstash Redis REST protocol in front of a
 * real redis-server, so `@upstash/redis` (and the hosted backend) run locally and in tests.
 *
 * What it implements (from Upstash's REST API documentation):
 * - `Authorization: Bearer <token>` (or `?_token=`); anything else gets 401 `{"error": …}`.
 * - `POST /` with a JSON command array such as `["SET", "k", "v"]` → `{"result": …}`, or
 *   HTTP 400 `{"error": …}` when Redis answers with an error.
 * - `POST /pipeline` with an array of commands → `[{"result": …} | {"error": …}, …]` (in order,
 *   not atomic: other clients may interleave), and `POST /multi-exec` → the same shape, run as
 *   one MULTI/EXEC transaction (atomic; a command Redis refuses to queue aborts the whole
 *   transaction with HTTP 400).
 * - The path form: `GET /set/foo/bar`, and `POST /set/foo` whose raw body is the last argument,
 *   with query parameters appended after it (`?EX=100` → `EX 100`).
 * - `Upstash-Encoding: base64`: every string in the result, nested ones too, is base64 of the raw
 *   bytes, except the status reply "OK". Integers stay numbers, nil is null, and map replies are
 *   flat arrays (RESP2, as Upstash returns them).
 * - EVAL, EVALSHA and SCRIPT LOAD pass through, except that Upstash's own shebang flag
 *   `allow-key-locking` (which redis-server refuses) is dropped from a script's `#!lua` line.
 *   Redis then hashes the script without it, so the client's EVALSHA of the original misses
 *   (NOSCRIPT) and it falls back to EVAL, as against a fresh Upstash database. With
 *   `keepUpstashFlags` the flag goes through and redis-server refuses the script, as behind a
 *   plain REST proxy.
 *
 * Not implemented: SUBSCRIBE/MONITOR streaming and read-your-writes sync tokens (one local
 * server is always consistent). Each request borrows a pooled connection; commands that change
 * connection state (SELECT, WATCH, CLIENT, …) get a connection that is closed afterwards.
 */
import {
  encodeArgs,
  type RespCommand,
  RespConnection,
  RespError,
  type RespReply,
} from "./_resp_connection.ts";

/** Options for {@linkcode startUpstashRedisGateway}. */
export interface UpstashRedisGatewayOptions {
  /** The redis-server behind the gateway, e.g. `redis://127.0.0.1:6379`. */
  redisUrl: string;
  /** The bearer token clients must send. */
  token: string;
  /** The port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** The interface to listen on. @default "127.0.0.1" */
  hostname?: string;
  /**
   * Pass Upstash's `allow-key-locking` script flag through to redis-server, which refuses it
   * (as a plain REST proxy in front of a stock redis-server does). @default false
   */
  keepUpstashFlags?: boolean;
  /** Called with each request's commands (name and first key), e.g. to see what a step sends. */
  onRequest?: (commands: string[]) => void;
}

/** A running gateway. */
export interface UpstashRedisGateway {
  /** The REST URL to give clients, e.g. `http://127.0.0.1:40111`. */
  url: string;
  /**
   * What clients sent so far: HTTP requests and the commands in them (a pipeline of five is one
   * request and five commands; commands a script runs inside Redis are not seen here).
   */
  stats(): { requests: number; commands: number };
  /** Stops listening and closes every Redis connection. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the gateway after checking that redis-server answers.
 *
 * @throws Error when redis-server cannot be reached or the token is empty
 * @example
 * ```ts ignore
 * const gateway = await startUpstashRedisGateway({ redisUrl: "redis://127.0.0.1:6379", token: "dev" });
 * const redis = new Redis({ url: gateway.url, token: "dev" });
 * await redis.set("greeting", "hello");
 * await gateway.close();
 * ```
 */
export async function startUpstashRedisGateway(
  options: UpstashRedisGatewayOptions,
): Promise<UpstashRedisGateway> {
  if (!options.token) throw new TypeError("Cannot start the gateway: the token is empty");
  const pool = new ConnectionPool(options.redisUrl);
  try {
    await pool.run([encodeArgs(["PING"])], true);
  } catch (error) {
    pool.close();
    throw new Error(`Cannot reach redis-server at "${redactUrl(options.redisUrl)}"`, {
      cause: error,
    });
  }
  const token = options.token;
  const counts = { requests: 0, commands: 0 };
  const server = Deno.serve(
    { hostname: options.hostname ?? "127.0.0.1", port: options.port ?? 0, onListen() {} },
    (request) =>
      handleRequest(request, {
        token,
        pool,
        counts,
        onRequest: options.onRequest,
        adapt: options.keepUpstashFlags ? (command) => command : withoutUpstashFlags,
      }),
  );
  const { hostname, port } = server.addr;
  let closed = false;
  return {
    url: `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`,
    stats: () => ({ ...counts }),
    async close() {
      if (closed) return;
      closed = true;
      pool.close();
      await server.shutdown();
    },
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Commands that would stream forever over one request. */
const STREAMING = new Set(["SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR", "SYNC", "PSYNC"]);

/** Commands that leave per-connection state behind, so their connection is not reused. */
const STATEFUL = new Set([
  "SELECT",
  "WATCH",
  "UNWATCH",
  "MULTI",
  "EXEC",
  "DISCARD",
  "AUTH",
  "HELLO",
  "CLIENT",
  "RESET",
  "QUIT",
  "READONLY",
  "READWRITE",
]);

const TEXT = new TextDecoder();

/** A command's name and first argument, for {@linkcode UpstashRedisGatewayOptions.onRequest}. */
function describeCommand(command: RespCommand): string {
  return command.slice(0, 2).map((part) => TEXT.decode(part).slice(0, 60)).join(" ");
}

interface GatewayState {
  token: string;
  pool: ConnectionPool;
  counts: { requests: number; commands: number };
  /** What each command becomes before it goes to redis-server. */
  adapt: (command: RespCommand) => RespCommand;
  onRequest?: (commands: string[]) => void;
}

async function handleRequest(request: Request, state: GatewayState): Promise<Response> {
  const { token, pool, counts } = state;
  counts.requests++;
  const url = new URL(request.url);
  if (!isAuthorized(request, url, token)) {
    return json({ error: "Unauthorized: send the token as 'Authorization: Bearer <token>'" }, 401);
  }
  if (!["GET", "HEAD", "POST", "PUT"].includes(request.method)) {
    return json({ error: `Method ${request.method} is not allowed` }, 405);
  }
  const base64 = request.headers.get("upstash-encoding")?.toLowerCase() === "base64";
  try {
    if (
      request.method === "POST" && (url.pathname === "/pipeline" || url.pathname === "/multi-exec")
    ) {
      const parsed = parseCommandList(await readJson(request));
      if (typeof parsed === "string") return json({ error: parsed }, 400);
      const commands = parsed.map(state.adapt);
      counts.commands += commands.length;
      state.onRequest?.(commands.map(describeCommand));
      return url.pathname === "/pipeline"
        ? await runPipeline(pool, commands, base64)
        : await runTransaction(pool, commands, base64);
    }
    const parsed = url.pathname === "/"
      ? parseCommand(await readJson(request))
      : await pathCommand(request, url);
    if (typeof parsed === "string") return json({ error: parsed }, 400);
    const command = state.adapt(parsed);
    counts.commands++;
    state.onRequest?.([describeCommand(command)]);
    const [reply] = await pool.run([command], isStateful([command]));
    if (reply instanceof RespError) return json({ error: reply.message }, 400);
    return json({ result: toJson(reply, base64) }, 200);
  } catch (error) {
    if (error instanceof BadRequest) return json({ error: error.message }, 400);
    return json(
      { error: `ERR the gateway lost its connection to redis-server: ${String(error)}` },
      502,
    );
  }
}

async function runPipeline(
  pool: ConnectionPool,
  commands: RespCommand[],
  base64: boolean,
): Promise<Response> {
  const replies = await pool.run(commands, isStateful(commands));
  return json(replies.map((reply) => entry(reply, base64)), 200);
}

async function runTransaction(
  pool: ConnectionPool,
  commands: RespCommand[],
  base64: boolean,
): Promise<Response> {
  // MULTI, the commands and EXEC go out in one write on a connection no one else uses, and the
  // connection is dropped afterwards, so a failed transaction cannot leave MULTI state behind.
  const replies = await pool.run(
    [encodeArgs(["MULTI"]), ...commands, encodeArgs(["EXEC"])],
    true,
  );
  const exec = replies.at(-1);
  if (exec instanceof RespError) {
    const cause = replies.slice(1, -1).find((r) => r instanceof RespError);
    const detail = cause instanceof RespError ? `: ${cause.message}` : "";
    return json({ error: `${exec.message.replace(/\.$/, "")}${detail}` }, 400);
  }
  if (!Array.isArray(exec)) return json({ error: "EXECABORT Transaction aborted" }, 400);
  return json(exec.map((reply) => entry(reply, base64)), 200);
}

function entry(reply: RespReply, base64: boolean): { result: unknown } | { error: string } {
  return reply instanceof RespError ? { error: reply.message } : { result: toJson(reply, base64) };
}

/** Converts a reply to JSON: bytes as UTF-8 text or base64, "OK" always as text. */
function toJson(reply: RespReply, base64: boolean): unknown {
  if (reply === null || typeof reply === "number") return reply;
  if (reply instanceof Uint8Array) return base64 ? encodeBase64(reply) : decoder.decode(reply);
  if (typeof reply === "string") {
    return base64 && reply !== "OK" ? encodeBase64(encoder.encode(reply)) : reply;
  }
  if (reply instanceof RespError) {
    // An error nested inside a script's table reply; shown as its message.
    return base64 ? encodeBase64(encoder.encode(reply.message)) : reply.message;
  }
  return reply.map((r) => toJson(r, base64));
}

/** A request the gateway refuses before reaching Redis. */
class BadRequest extends Error {}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest("ERR the request body is not valid JSON");
  }
}

/** A command array of strings, numbers and booleans, or an error message. */
function parseCommand(body: unknown): RespCommand | string {
  if (!Array.isArray(body) || body.length === 0) {
    return 'ERR send the command as a non-empty JSON array, e.g. ["GET", "key"]';
  }
  const args: Uint8Array[] = [];
  for (const arg of body) {
    if (typeof arg === "string") args.push(encoder.encode(arg));
    else if (typeof arg === "number" || typeof arg === "boolean") {
      args.push(encoder.encode(String(arg)));
    } else return "ERR command arguments must be strings, numbers or booleans";
  }
  const name = decoder.decode(args[0]).toUpperCase();
  if (STREAMING.has(name)) return `ERR the dev gateway does not support ${name}`;
  return args;
}

/** EVAL / SCRIPT LOAD with the Upstash-only `allow-key-locking` shebang flag removed. */
function withoutUpstashFlags(args: RespCommand): RespCommand {
  const name = decoder.decode(args[0]).toUpperCase();
  const at = name === "EVAL" || name === "EVAL_RO"
    ? 1
    : name === "SCRIPT" && decoder.decode(args[1] ?? new Uint8Array()).toUpperCase() === "LOAD"
    ? 2
    : -1;
  if (at < 0 || args[at] === undefined) return args;
  const script = decoder.decode(args[at]);
  const shebang = /^#!lua([^\n]*)/.exec(script);
  if (!shebang || !shebang[1].includes("allow-key-locking")) return args;
  const flags = shebang[1].replace(/allow-key-locking,?/, "").replace(/,\s*$/, "")
    .replace(/flags=\s*$/, "");
  const copy = [...args];
  copy[at] = encoder.encode(`#!lua${flags.trimEnd()}${script.slice(shebang[0].length)}`);
  return copy;
}

function parseCommandList(body: unknown): RespCommand[] | string {
  if (!Array.isArray(body) || body.length === 0) {
    return 'ERR send a non-empty JSON array of commands, e.g. [["GET", "a"], ["GET", "b"]]';
  }
  const commands: RespCommand[] = [];
  for (const item of body) {
    const command = parseCommand(item);
    if (typeof command === "string") return command;
    commands.push(command);
  }
  return commands;
}

/** `/cmd/arg1/arg2` plus an optional raw body as the last argument and query parameters after it. */
async function pathCommand(request: Request, url: URL): Promise<RespCommand | string> {
  const segments = url.pathname.split("/").filter((s) => s.length > 0);
  const args: Uint8Array[] = [];
  for (const segment of segments) {
    try {
      args.push(encoder.encode(decodeURIComponent(segment)));
    } catch {
      return "ERR a path segment is not valid percent-encoding";
    }
  }
  if (request.method === "POST" || request.method === "PUT") {
    const body = new Uint8Array(await request.arrayBuffer());
    if (body.length > 0) args.push(body);
  }
  for (const [key, value] of url.searchParams) {
    if (key === "_token") continue;
    args.push(encoder.encode(key));
    if (value !== "") args.push(encoder.encode(value));
  }
  if (args.length === 0) return "ERR empty command";
  const name = decoder.decode(args[0]).toUpperCase();
  if (STREAMING.has(name)) return `ERR the dev gateway does not support ${name}`;
  return args;
}

function isStateful(commands: readonly RespCommand[]): boolean {
  return commands.some((c) => STATEFUL.has(decoder.decode(c[0]).toUpperCase()));
}

function isAuthorized(request: Request, url: URL, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const given = match?.[1] ?? url.searchParams.get("_token") ?? "";
  return timingSafeEqual(given, token);
}

function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function json(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}

/** Idle connections to reuse; each request borrows one for its whole exchange. */
class ConnectionPool {
  readonly #url: string;
  readonly #idle: RespConnection[] = [];
  readonly #all = new Set<RespConnection>();
  #closed = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** Sends commands on one connection; `discard` closes it afterwards instead of reusing it. */
  async run(commands: readonly RespCommand[], discard: boolean): Promise<RespReply[]> {
    if (this.#closed) throw new Error("the gateway is closed");
    const connection = this.#idle.pop() ?? await this.#open();
    try {
      return await connection.send(commands);
    } finally {
      if (discard || connection.closed || this.#closed || this.#idle.length >= 16) {
        connection.close();
        this.#all.delete(connection);
      } else {
        this.#idle.push(connection);
      }
    }
  }

  close(): void {
    this.#closed = true;
    for (const connection of this.#all) connection.close();
    this.#all.clear();
    this.#idle.length = 0;
  }

  async #open(): Promise<RespConnection> {
    const connection = await RespConnection.connect(this.#url);
    if (this.#closed) {
      connection.close();
      throw new Error("the gateway is closed");
    }
    this.#all.add(connection);
    return connection;
  }
}
