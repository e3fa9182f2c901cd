/**
 * @module A dev tool: an in-memory server that speaks the Upstash Vector REST protocol, so
 * `@upstash/vector` (and the hosted backend) run locally and in tests. Vectors live in process
 * memory and vanish on close; it scores by brute force. Never use it as a real index.
 *
 * Endpoints (all `POST /{endpoint}[/{namespace}]`, bearer token required, answers
 * `{"result": …}` or `{"error": "…", "status": n}`), with the request and response shapes the
 * `@upstash/vector` client sends and expects:
 * - `upsert` (one vector or an array; replaces the whole record, metadata included),
 * - `query` (one query → a list of matches, an array of queries → a list of lists),
 * - `fetch` (`ids` → one entry or null per id; `prefix` → the matching vectors),
 * - `delete` (`ids` or `prefix` → `{deleted}`), `range` (offset cursors; "" at the end),
 * - `update` (`metadataUpdateMode` "OVERWRITE" or "PATCH" → `{updated}`),
 * - `reset` (one namespace, or `reset?all`), `info`, `list-namespaces`, `delete-namespace/{ns}`.
 *
 * Scores follow Upstash: COSINE (1 + cos) / 2, EUCLIDEAN 1 / (1 + squared distance), DOT_PRODUCT
 * (1 + dot) / 2. Vectors are kept as float32 like the hosted index. Namespaces are created by
 * the first upsert; other calls on a namespace that does not exist answer 404. Query filters:
 * only what the product sends (see `_metadata_filter.ts`). Not supported: sparse vectors,
 * `*-data` endpoints (no embedding model), filtered deletes and resumable queries.
 */
import { compileFilter, FilterSyntaxError, type MetadataPredicate } from "./_metadata_filter.ts";

/** How query scores are computed. */
export type VectorSimilarity = "COSINE" | "EUCLIDEAN" | "DOT_PRODUCT";

/** Options for {@linkcode startUpstashVectorServer}. */
export interface UpstashVectorServerOptions {
  /** The bearer token clients must send. */
  token: string;
  /** The dimension every vector must have. */
  dimensions: number;
  /** The port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** The interface to listen on. @default "127.0.0.1" */
  hostname?: string;
  /** The similarity function. @default "COSINE" */
  similarity?: VectorSimilarity;
}

/** A running dev vector server. */
export interface UpstashVectorServer {
  /** The REST URL to give clients, e.g. `http://127.0.0.1:40112`. */
  url: string;
  /** Requests received so far, by endpoint (`query`, `upsert`, `fetch`, …). */
  stats(): { requests: Record<string, number> };
  /** Stops listening; stored vectors are dropped. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the in-memory vector server.
 *
 * @throws TypeError when the token is empty or the dimension is not a positive integer
 * @example
 * ```ts ignore
 * const server = await startUpstashVectorServer({ token: "dev", dimensions: 3 });
 * const index = new Index({ url: server.url, token: "dev" });
 * await index.upsert({ id: "a", vector: [1, 0, 0], metadata: { kind: "plan" } });
 * await server.close();
 * ```
 */
export function startUpstashVectorServer(
  options: UpstashVectorServerOptions,
): Promise<UpstashVectorServer> {
  try {
    return Promise.resolve(serve(options));
  } catch (error) {
    return Promise.reject(error);
  }
}

function serve(options: UpstashVectorServerOptions): UpstashVectorServer {
  if (!options.token) throw new TypeError("Cannot start the vector server: the token is empty");
  if (!Number.isInteger(options.dimensions) || options.dimensions < 1) {
    throw new TypeError(
      `Cannot start the vector server: dimensions must be a positive integer, got ${options.dimensions}`,
    );
  }
  const index = new MemoryIndex(options.dimensions, options.similarity ?? "COSINE");
  const token = options.token;
  const requests: Record<string, number> = {};
  const server = Deno.serve(
    { hostname: options.hostname ?? "127.0.0.1", port: options.port ?? 0, onListen() {} },
    (request) => {
      const endpoint = new URL(request.url).pathname.split("/")[1] ?? "";
      requests[endpoint] = (requests[endpoint] ?? 0) + 1;
      return handleRequest(request, token, index);
    },
  );
  const { hostname, port } = server.addr;
  let closed = false;
  return {
    url: `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`,
    stats: () => ({ requests: { ...requests } }),
    async close() {
      if (closed) return;
      closed = true;
      await server.shutdown();
    },
  };
}

/** An error answered as `{error, status}`. */
class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface StoredVector {
  vector: Float32Array;
  metadata?: Record<string, unknown>;
  data?: string;
}

interface IncludeFlags {
  includeVectors: boolean;
  includeMetadata: boolean;
  includeData: boolean;
}

const encoder = new TextEncoder();

async function handleRequest(
  request: Request,
  token: string,
  index: MemoryIndex,
): Promise<Response> {
  try {
    if (!isAuthorized(request, token)) throw new HttpError(401, "Unauthorized");
    const url = new URL(request.url);
    const [endpoint = "", ...rest] = url.pathname.split("/").filter((s) => s !== "");
    const namespace = decodeURIComponent(rest.join("/"));
    const readOnly = endpoint === "info" || endpoint === "list-namespaces";
    if (request.method !== "POST" && !(request.method === "GET" && readOnly)) {
      throw new HttpError(405, `Method ${request.method} is not allowed: use POST`);
    }
    const body = request.method === "POST" ? await readJson(request) : undefined;
    return ok(dispatch(index, endpoint, { namespace, body, all: url.searchParams.has("all") }));
  } catch (error) {
    if (error instanceof HttpError) return fail(error.status, error.message);
    if (error instanceof FilterSyntaxError) return fail(400, error.message);
    return fail(500, `Internal error: ${String(error)}`);
  }
}

/** Runs an endpoint on `index`: `all` is the `?all` flag of `reset`. */
function dispatch(
  index: MemoryIndex,
  endpoint: string,
  { namespace, body, all }: { namespace: string; body: unknown; all: boolean },
): unknown {
  switch (endpoint) {
    case "upsert":
      return index.upsert(namespace, body);
    case "query":
      return index.query(namespace, body);
    case "fetch":
      return index.fetch(namespace, body);
    case "delete":
      return index.delete(namespace, body);
    case "range":
      return index.range(namespace, body);
    case "update":
      return index.update(namespace, body);
    case "reset":
      return index.reset(namespace, all);
    case "info":
      return index.info();
    case "list-namespaces":
      return index.listNamespaces();
    case "delete-namespace":
      return index.deleteNamespace(namespace);
    case "upsert-data":
    case "query-data":
    case "resumable-query-data":
      throw new HttpError(
        400,
        "This index has no embedding model: send vectors with upsert and query instead of data",
      );
    case "resumable-query":
    case "resumable-query-next":
    case "resumable-query-end":
      throw new HttpError(400, "The dev vector server does not support resumable queries");
    default:
      throw new HttpError(404, `Unknown endpoint "${endpoint}"`);
  }
}

/** Namespaces of vectors by id, plus the operations behind each endpoint. */
class MemoryIndex {
  readonly #dimensions: number;
  readonly #similarity: VectorSimilarity;
  readonly #namespaces = new Map<string, Map<string, StoredVector>>([["", new Map()]]);

  constructor(dimensions: number, similarity: VectorSimilarity) {
    this.#dimensions = dimensions;
    this.#similarity = similarity;
  }

  upsert(namespace: string, body: unknown): string {
    const items = Array.isArray(body) ? body : [body];
    // Validate everything first so a bad item writes nothing.
    const parsed = items.map((item) => {
      const record = asObject(item, "Each vector to upsert must be an object");
      if ("sparseVector" in record) {
        throw new HttpError(400, "The dev vector server does not support sparse vectors");
      }
      if (!("vector" in record)) {
        throw new HttpError(
          400,
          "This index has no embedding model: each upsert needs a vector, not data",
        );
      }
      const id = parseId(record.id);
      const stored: StoredVector = { vector: this.#parseVector(record.vector) };
      if (record.metadata !== undefined) stored.metadata = parseMetadata(record.metadata);
      if (record.data !== undefined) stored.data = parseData(record.data);
      return [id, stored] as const;
    });
    let vectors = this.#namespaces.get(namespace);
    if (!vectors) {
      vectors = new Map();
      this.#namespaces.set(namespace, vectors);
    }
    for (const [id, stored] of parsed) vectors.set(id, stored);
    return "Success";
  }

  query(namespace: string, body: unknown): unknown {
    const vectors = this.#existing(namespace);
    if (Array.isArray(body)) {
      const results = body.map((q) => this.#queryOne(vectors, q));
      // Like the hosted API, one query sent as an array gets a flat list back.
      return results.length === 1 ? results[0] : results;
    }
    return this.#queryOne(vectors, body);
  }

  fetch(namespace: string, body: unknown): unknown {
    const vectors = this.#existing(namespace);
    const request = asObject(body, "The fetch body must be an object");
    const flags = includeFlags(request);
    if (request.prefix !== undefined) {
      if (typeof request.prefix !== "string") throw new HttpError(400, "prefix must be a string");
      const prefix = request.prefix;
      return sortedIds(vectors)
        .filter((id) => id.startsWith(prefix))
        .slice(0, 1000)
        .map((id) => present(id, vectors.get(id)!, flags));
    }
    if (!Array.isArray(request.ids)) throw new HttpError(400, "fetch needs ids or a prefix");
    return request.ids.map((raw) => {
      const id = parseId(raw);
      const stored = vectors.get(id);
      return stored ? present(id, stored, flags) : null;
    });
  }

  delete(namespace: string, body: unknown): { deleted: number } {
    const vectors = this.#existing(namespace);
    let ids: string[];
    if (Array.isArray(body)) {
      ids = body.map(parseId);
    } else if (typeof body === "string" || typeof body === "number") {
      ids = [parseId(body)];
    } else {
      const request = asObject(body, "The delete body must be ids, or an object");
      if (Array.isArray(request.ids)) {
        ids = request.ids.map(parseId);
      } else if (typeof request.prefix === "string") {
        const prefix = request.prefix;
        ids = [...vectors.keys()].filter((id) => id.startsWith(prefix));
      } else {
        throw new HttpError(
          400,
          "delete needs ids or a prefix (the dev server has no filter delete)",
        );
      }
    }
    let deleted = 0;
    for (const id of ids) if (vectors.delete(id)) deleted++;
    return { deleted };
  }

  range(namespace: string, body: unknown): { nextCursor: string; vectors: unknown[] } {
    const vectors = this.#existing(namespace);
    const request = asObject(body, "The range body must be an object");
    const limit = request.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) {
      throw new HttpError(400, "range needs a limit of at least 1");
    }
    const cursor = request.cursor === undefined || request.cursor === ""
      ? 0
      : Number(request.cursor);
    if (!Number.isInteger(cursor) || cursor < 0) throw new HttpError(400, "Invalid range cursor");
    const prefix = typeof request.prefix === "string" ? request.prefix : "";
    const ids = sortedIds(vectors).filter((id) => id.startsWith(prefix));
    const page = ids.slice(cursor, cursor + limit);
    const flags = includeFlags(request);
    return {
      nextCursor: cursor + limit < ids.length ? String(cursor + limit) : "",
      vectors: page.map((id) => present(id, vectors.get(id)!, flags)),
    };
  }

  update(namespace: string, body: unknown): { updated: number } {
    const vectors = this.#existing(namespace);
    const request = asObject(body, "The update body must be an object");
    const id = parseId(request.id);
    const stored = vectors.get(id);
    const vector = request.vector === undefined ? undefined : this.#parseVector(request.vector);
    const data = request.data === undefined ? undefined : parseData(request.data);
    const mode = request.metadataUpdateMode ?? "OVERWRITE";
    if (mode !== "OVERWRITE" && mode !== "PATCH") {
      throw new HttpError(400, 'metadataUpdateMode must be "OVERWRITE" or "PATCH"');
    }
    const metadata = request.metadata === undefined ? undefined : asObject(
      request.metadata,
      "metadata must be an object",
    );
    if (!stored) return { updated: 0 };
    if (vector) stored.vector = vector;
    if (data !== undefined) stored.data = data;
    if (metadata) {
      stored.metadata = mode === "PATCH"
        ? mergePatch(stored.metadata ?? {}, metadata) as Record<string, unknown>
        : parseMetadata(metadata);
    }
    return { updated: 1 };
  }

  reset(namespace: string, all: boolean): string {
    if (all) {
      this.#namespaces.clear();
      this.#namespaces.set("", new Map());
    } else {
      this.#existing(namespace).clear();
    }
    return "Success";
  }

  info(): unknown {
    let vectorCount = 0;
    let indexSize = 0;
    const namespaces: Record<string, { vectorCount: number; pendingVectorCount: number }> = {};
    for (const [name, vectors] of this.#namespaces) {
      namespaces[name] = { vectorCount: vectors.size, pendingVectorCount: 0 };
      vectorCount += vectors.size;
      for (const [id, stored] of vectors) {
        indexSize += id.length + stored.vector.byteLength +
          (stored.metadata ? encoder.encode(JSON.stringify(stored.metadata)).length : 0) +
          (stored.data?.length ?? 0);
      }
    }
    return {
      vectorCount,
      pendingVectorCount: 0,
      indexSize,
      dimension: this.#dimensions,
      similarityFunction: this.#similarity,
      denseIndex: { dimension: this.#dimensions, similarityFunction: this.#similarity },
      namespaces,
    };
  }

  listNamespaces(): string[] {
    return [...this.#namespaces.keys()].sort();
  }

  deleteNamespace(namespace: string): string {
    if (namespace === "") throw new HttpError(400, "Cannot delete the default namespace");
    this.#existing(namespace);
    this.#namespaces.delete(namespace);
    return "Success";
  }

  #existing(namespace: string): Map<string, StoredVector> {
    const vectors = this.#namespaces.get(namespace);
    if (!vectors) throw new HttpError(404, `Namespace "${namespace}" does not exist`);
    return vectors;
  }

  #queryOne(vectors: Map<string, StoredVector>, body: unknown): unknown[] {
    const request = asObject(body, "Each query must be an object");
    if ("sparseVector" in request) {
      throw new HttpError(400, "The dev vector server does not support sparse vectors");
    }
    if (!("vector" in request)) {
      throw new HttpError(400, "This index has no embedding model: query with a vector, not data");
    }
    const query = this.#parseVector(request.vector);
    const topK = request.topK ?? 10;
    if (typeof topK !== "number" || !Number.isInteger(topK) || topK < 1) {
      throw new HttpError(400, "topK must be a positive integer");
    }
    if (request.filter !== undefined && typeof request.filter !== "string") {
      throw new HttpError(400, "filter must be a string");
    }
    const matches: MetadataPredicate = compileFilter(request.filter ?? "");
    const flags = includeFlags(request);
    const scored: { id: string; score: number; stored: StoredVector }[] = [];
    for (const [id, stored] of vectors) {
      if (matches(stored.metadata)) {
        scored.push({ id, score: this.#score(query, stored.vector), stored });
      }
    }
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, topK).map(({ id, score, stored }) => ({
      id,
      score,
      ...present(id, stored, flags),
    }));
  }

  #score(a: Float32Array, b: Float32Array): number {
    let dot = 0;
    let na = 0;
    let nb = 0;
    let squared = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
      squared += (a[i] - b[i]) ** 2;
    }
    switch (this.#similarity) {
      case "COSINE": {
        const cos = na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
        return (1 + Math.max(-1, Math.min(1, cos))) / 2;
      }
      case "EUCLIDEAN":
        return 1 / (1 + squared);
      case "DOT_PRODUCT":
        return (1 + dot) / 2;
    }
  }

  #parseVector(raw: unknown): Float32Array {
    if (!Array.isArray(raw) || !raw.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw new HttpError(400, "A vector must be an array of finite numbers");
    }
    if (raw.length !== this.#dimensions) {
      throw new HttpError(
        400,
        `Invalid vector dimension: ${raw.length}, expected: ${this.#dimensions}`,
      );
    }
    return Float32Array.from(raw);
  }
}

function present(id: string, stored: StoredVector, flags: IncludeFlags): Record<string, unknown> {
  const out: Record<string, unknown> = { id };
  if (flags.includeVectors) out.vector = Array.from(stored.vector);
  if (flags.includeMetadata && stored.metadata !== undefined) out.metadata = stored.metadata;
  if (flags.includeData && stored.data !== undefined) out.data = stored.data;
  return out;
}

function includeFlags(request: Record<string, unknown>): IncludeFlags {
  return {
    includeVectors: request.includeVectors === true,
    includeMetadata: request.includeMetadata === true,
    includeData: request.includeData === true,
  };
}

function sortedIds(vectors: Map<string, StoredVector>): string[] {
  return [...vectors.keys()].sort();
}

function parseId(raw: unknown): string {
  if (
    (typeof raw === "string" && raw !== "") || (typeof raw === "number" && Number.isFinite(raw))
  ) {
    return String(raw);
  }
  throw new HttpError(400, "A vector id must be a non-empty string or a number");
}

function parseMetadata(raw: unknown): Record<string, unknown> {
  const metadata = asObject(raw, "metadata must be an object");
  if (encoder.encode(JSON.stringify(metadata)).length > 48 * 1024) {
    throw new HttpError(400, "Metadata is larger than 48 KB");
  }
  return structuredClone(metadata);
}

function parseData(raw: unknown): string {
  if (typeof raw !== "string") throw new HttpError(400, "data must be a string");
  return raw;
}

function asObject(raw: unknown, message: string): Record<string, unknown> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new HttpError(400, message);
  }
  return raw as Record<string, unknown>;
}

/** RFC 7396 JSON merge patch: null removes a key, objects merge, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    target !== null && typeof target === "object" && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "The request body is not valid JSON");
  }
}

function isAuthorized(request: Request, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const given = encoder.encode(match?.[1] ?? "");
  const expected = encoder.encode(token);
  let diff = given.length ^ expected.length;
  for (let i = 0; i < Math.max(given.length, expected.length); i++) {
    diff |= (given[i] ?? 0) ^ (expected[i] ?? 0);
  }
  return diff === 0;
}

function ok(result: unknown): Response {
  return new Response(JSON.stringify({ result }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

function fail(status: number, error: string): Response {
  return new Response(JSON.stringify({ error, status }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
