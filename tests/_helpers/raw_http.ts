/**
 * @module Requests written byte by byte on a TCP socket, for what `fetch` never sends: bodies
 * shorter than their Content-Length, malformed `Host` headers, bodies that stop half-way.
 */

/** An answer read off the socket. */
export interface RawAnswer {
  /** 0 when no status line came before the socket closed or the wait ran out. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Ms from writing the request to the end of the answer's body. */
  ms: number;
}

/** Options of {@linkcode rawRequest}. */
export interface RawRequestOptions {
  /** Half-closes the socket after writing (the client gives up on the rest). @default false */
  closeWrite?: boolean;
  /** Gives up reading after this long. @default 10 s */
  waitMs?: number;
}

/** The head of a request: a request line, `Host` and other headers, and an empty line. */
export function requestHead(
  method: string,
  path: string,
  headers: Record<string, string>,
): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`;
}

/** Opens a connection to `port` on 127.0.0.1 and writes `text` on it. */
export async function openWith(port: number, text: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(text));
  return conn;
}

/** The head of a JSON `POST /v1/worlds` to `port` that promises a body of 1,000 bytes. */
export function createWorldHead(port: number): string {
  return requestHead("POST", "/v1/worlds", {
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    "content-length": "1000",
  });
}

/** `count` connections to `port`, each holding a `POST /v1/worlds` with half its body sent. */
export function holdHalfBodies(port: number, count: number): Promise<Deno.TcpConn[]> {
  const head = createWorldHead(port);
  return Promise.all(Array.from({ length: count }, () => openWith(port, `${head}{"id": "slow`)));
}

/** Ms a `GET /health` of the server at `url` takes, and its status. */
export async function timeHealth(url: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/health`);
  await res.body?.cancel();
  return { ms: Math.round(performance.now() - started), status: res.status };
}

/**
 * Reads one answer from `conn` (until its body's Content-Length is in, the socket closes, or
 * the wait runs out); the connection stays open, unless the wait ran out.
 */
export async function readAnswer(conn: Deno.Conn, waitMs = 10_000): Promise<RawAnswer> {
  const started = performance.now();
  const bytes: number[] = [];
  const buffer = new Uint8Array(16_384);
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
  }, waitMs);
  let answer = parse(bytes);
  try {
    while (answer === null) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      bytes.push(...buffer.subarray(0, n));
      answer = parse(bytes);
    }
  } finally {
    clearTimeout(timer);
  }
  return { ...(answer ?? parsePartial(bytes)), ms: performance.now() - started };
}

/** Writes `text` on a new connection, reads the answer, closes the connection. */
export async function rawRequest(
  port: number,
  text: string,
  options: RawRequestOptions = {},
): Promise<RawAnswer> {
  const conn = await openWith(port, text);
  try {
    if (options.closeWrite) await conn.closeWrite();
    return await readAnswer(conn, options.waitMs);
  } finally {
    try {
      conn.close();
    } catch {
      // Already closed by the wait running out.
    }
  }
}

type Parsed = Omit<RawAnswer, "ms">;

/** The whole answer once its head and Content-Length bytes of body are in, else null. */
function parse(bytes: number[]): Parsed | null {
  const partial = parsePartial(bytes);
  const length = Number(partial.headers["content-length"] ?? NaN);
  const headEnd = findHeadEnd(bytes);
  if (headEnd === -1 || Number.isNaN(length)) return null;
  return bytes.length - headEnd >= length ? partial : null;
}

function findHeadEnd(bytes: number[]): number {
  for (let i = 3; i < bytes.length; i++) {
    if (bytes[i - 3] === 13 && bytes[i - 2] === 10 && bytes[i - 1] === 13 && bytes[i] === 10) {
      return i + 1;
    }
  }
  return -1;
}

function parsePartial(bytes: number[]): Parsed {
  const text = new TextDecoder().decode(new Uint8Array(bytes));
  const [head, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...headerLines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status, headers, body: rest.join("\r\n\r\n") };
}
