/**
 * @module A minimal RESP2 client over one TCP connection, private to the dev gateway. It sends
 * commands as raw bytes and returns raw replies (bulk strings stay bytes), so the gateway decides
 * how to encode them. RESP2 already returns HGETALL-style maps as flat arrays; RESP3 maps and
 * sets are flattened to arrays too, should a server send them.
 */
import { concatBytes } from "../lib/bytes.ts";

/** A Redis error reply, kept as a value so pipelines can report it per command. */
export class RespError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/**
 * A decoded reply: bulk strings as bytes, simple strings as JS strings, integers as numbers,
 * nil as null, errors as {@linkcode RespError}, arrays of replies.
 */
export type RespReply = Uint8Array | string | number | null | RespError | RespReply[];

/** One command: its name and arguments as bytes. */
export type RespCommand = readonly Uint8Array[];

const CRLF = new Uint8Array([13, 10]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One connection to a Redis server; not safe for concurrent `send` calls (the gateway pools them). */
export class RespConnection {
  readonly #conn: Deno.Conn;
  /** Bytes received; `#buffer` is the unparsed window into it. */
  #storage = new Uint8Array(64 * 1024);
  #buffer = this.#storage.subarray(0, 0);
  #closed = false;

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /**
   * Connects to `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS), then sends
   * AUTH and SELECT when the URL asks for them.
   */
  static async connect(url: string): Promise<RespConnection> {
    const parsed = new URL(url);
    if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
      throw new TypeError(
        `Cannot connect to "${parsed.protocol}//": use a redis:// or rediss:// URL`,
      );
    }
    const hostname = parsed.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
    const port = parsed.port ? Number(parsed.port) : 6379;
    const conn = parsed.protocol === "rediss:"
      ? await Deno.connectTls({ hostname, port })
      : await Deno.connect({ hostname, port });
    const connection = new RespConnection(conn);
    try {
      const setup: string[][] = [];
      const password = decodeURIComponent(parsed.password);
      const username = decodeURIComponent(parsed.username);
      if (password) setup.push(username ? ["AUTH", username, password] : ["AUTH", password]);
      const db = parsed.pathname.replace(/^\//, "");
      if (db) setup.push(["SELECT", db]);
      if (setup.length > 0) {
        const replies = await connection.send(setup.map(encodeArgs));
        const failed = replies.find((r) => r instanceof RespError);
        if (failed instanceof RespError) {
          throw new Error(`Redis refused the connection setup: ${failed.message}`);
        }
      }
    } catch (error) {
      connection.close();
      throw error;
    }
    return connection;
  }

  /** Whether the connection broke or was closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Writes every command in one go, then reads one reply per command, in order. */
  async send(commands: readonly RespCommand[]): Promise<RespReply[]> {
    if (this.#closed) throw new Error("Cannot send on a closed Redis connection");
    try {
      await this.#writeAll(encodeCommands(commands));
      const replies: RespReply[] = [];
      for (let i = 0; i < commands.length; i++) replies.push(await this.#readReply());
      return replies;
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Closes the socket; later sends fail. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Already closed by the peer.
    }
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) offset += await this.#conn.write(bytes.subarray(offset));
  }

  async #readReply(): Promise<RespReply> {
    const parser = new ReplyParser();
    while (true) {
      const step = parser.feed(this.#buffer);
      this.#buffer = this.#buffer.subarray(step.consumed);
      if (step.done) return step.value;
      await this.#fill();
    }
  }

  async #fill(): Promise<void> {
    // Grow geometrically so a large reply arriving in many reads is copied O(n) times in total.
    const used = this.#buffer.length;
    if (this.#storage.length - this.#bufferOffset() - used < 16 * 1024) {
      const grown = new Uint8Array(Math.max(64 * 1024, used * 2 + 16 * 1024));
      grown.set(this.#buffer);
      this.#storage = grown;
      this.#buffer = grown.subarray(0, used);
    }
    const start = this.#bufferOffset() + used;
    const n = await this.#conn.read(this.#storage.subarray(start));
    if (n === null) throw new Error("Redis closed the connection");
    this.#buffer = this.#storage.subarray(this.#bufferOffset(), start + n);
  }

  #bufferOffset(): number {
    return this.#buffer.byteOffset - this.#storage.byteOffset;
  }
}

/** Encodes string arguments as bytes. */
export function encodeArgs(args: readonly string[]): Uint8Array[] {
  return args.map((a) => encoder.encode(a));
}

function encodeCommands(commands: readonly RespCommand[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const command of commands) {
    parts.push(encoder.encode(`*${command.length}\r\n`));
    for (const arg of command) {
      parts.push(encoder.encode(`$${arg.length}\r\n`), arg, CRLF);
    }
  }
  return concatBytes(parts);
}

interface Frame {
  remaining: number;
  values: RespReply[];
}

type Step = { done: true; value: RespReply; consumed: number } | {
  done: false;
  consumed: number;
};

/**
 * An incremental parser for one reply: it keeps the arrays it is inside, so bytes that arrive
 * later continue where parsing stopped instead of starting over (large replies stay linear).
 */
class ReplyParser {
  readonly #stack: Frame[] = [];

  feed(buf: Uint8Array): Step {
    let pos = 0;
    while (true) {
      const token = parseToken(buf, pos);
      if (!token) return { done: false, consumed: pos };
      pos = token.end;
      let value: RespReply;
      if ("count" in token) {
        if (token.count > 0) {
          this.#stack.push({ remaining: token.count, values: [] });
          continue;
        }
        value = [];
      } else {
        value = token.value;
      }
      // Fold finished arrays into their parents.
      while (true) {
        const top = this.#stack.at(-1);
        if (!top) return { done: true, value, consumed: pos };
        top.values.push(value);
        top.remaining--;
        if (top.remaining > 0) break;
        this.#stack.pop();
        value = top.values;
      }
    }
  }
}

type Token = { value: RespReply; end: number } | { count: number; end: number };

/** Parses one scalar or aggregate header at `start`, or returns undefined when bytes are missing. */
function parseToken(buf: Uint8Array, start: number): Token | undefined {
  if (start >= buf.length) return undefined;
  const lineEnd = findCrlf(buf, start + 1);
  if (lineEnd < 0) return undefined;
  const type = buf[start];
  const line = decoder.decode(buf.subarray(start + 1, lineEnd));
  const next = lineEnd + 2;
  switch (type) {
    case 0x2b: // + simple string
      return { value: line, end: next };
    case 0x2d: // - error
      return { value: new RespError(line), end: next };
    case 0x3a: // : integer
    case 0x28: // ( RESP3 big number
      return { value: Number(line), end: next };
    case 0x2c: // , RESP3 double, kept as text like RESP2 sends it
      return { value: line, end: next };
    case 0x23: // # RESP3 boolean, as RESP2 integers
      return { value: line === "t" ? 1 : 0, end: next };
    case 0x5f: // _ RESP3 null
      return { value: null, end: next };
    case 0x24: // $ bulk string
    case 0x21: // ! RESP3 blob error
    case 0x3d: { // = RESP3 verbatim string ("txt:" + text)
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buf.length < next + length + 2) return undefined;
      const bytes = buf.slice(next, next + length);
      const end = next + length + 2;
      if (type === 0x21) return { value: new RespError(decoder.decode(bytes)), end };
      return { value: type === 0x3d ? bytes.subarray(4) : bytes, end };
    }
    case 0x2a: // * array
    case 0x7e: // ~ RESP3 set
    case 0x3e: // > RESP3 push
    case 0x25: { // % RESP3 map, flattened to key, value, key, value…
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      return { count: type === 0x25 ? count * 2 : count, end: next };
    }
    default:
      throw new Error(`Cannot parse a Redis reply starting with byte ${type}`);
  }
}

function findCrlf(buf: Uint8Array, from: number): number {
  for (let i = from; i < buf.length - 1; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10) return i;
  }
  return -1;
}
