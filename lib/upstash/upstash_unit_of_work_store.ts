/**
 * @module The hosted UnitOfWorkStore: `begin` is one pipelined request (SET NX PX per lease,
 * HGET per document, GET of the claim; shared with other begins and reads started together),
 * `commit` one script that checks the fences, the claim and the versions, writes the documents
 * and the claim (and counts it) and releases the leases.
 */
import { LeaseLostError } from "../../src/errors.ts";
import {
  assertOneWritePerDocument,
  type BeginRequest,
  type Begun,
  claimTaken,
  type CommitRequest,
  type Committed,
  type UnitOfWorkStore,
  versionConflict,
} from "../../src/ports/unit_of_work_store.ts";
import {
  type LuaScript,
  luaScript,
  ReadBatcher,
  redisCall,
  type RedisClient,
  unexpectedReply,
} from "./_upstash_calls.ts";
import { decodeDocument, documentHashKey, encodeDocument } from "./upstash_document_store.ts";
import { encode, idempotencyKey, ttlArgument } from "./upstash_idempotency_store.ts";
import { lockKey } from "./upstash_lock.ts";

/** Configuration of {@linkcode UpstashUnitOfWorkStore}. */
export interface UpstashUnitOfWorkStoreConfig {
  redis: RedisClient;
  /** Shared with the other stores so requests started together go out together. */
  reads?: ReadBatcher;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
  /** Makes lease tokens, injectable for tests. @default crypto.randomUUID */
  token?: () => string;
}

// Atomic, as every script. KEYS: the fences' lock keys, the released leases' lock keys, the
// claim's key when ARGV[3] is 1 or 2 and its counter's key when it is 2, then one document hash
// per write. ARGV: fence count, release count, claim flag, claim value, the fences' tokens, the
// released tokens, then per write: id, expected version, stored value, and last the claim's time
// to live in ms (0: kept; the counter's starts with its first count). Returns -i when fence i is
// not held, j when write j finds another version, "claimed" when the claim's key holds a value
// (all writing nothing), else {0, the counter's new value or 0}.
const COMMIT = `
local nf = tonumber(ARGV[1])
local nr = tonumber(ARGV[2])
local nc = tonumber(ARGV[3])
for i = 1, nf do
  if redis.call('GET', KEYS[i]) ~= ARGV[4 + i] then return -i end
end
if nc > 0 and redis.call('EXISTS', KEYS[nf + nr + 1]) == 1 then return 'claimed' end
local d = nf + nr + nc
local a = 4 + nf + nr
local n = #KEYS - d
for j = 1, n do
  local current = redis.call('HGET', KEYS[d + j], ARGV[a + 3 * j - 2])
  local version = 0
  if current then version = tonumber(string.match(current, '^(%d+):')) end
  if version ~= tonumber(ARGV[a + 3 * j - 1]) then return j end
end
for j = 1, n do redis.call('HSET', KEYS[d + j], ARGV[a + 3 * j - 2], ARGV[a + 3 * j]) end
local ttl = ARGV[#ARGV]
if nc > 0 and ttl ~= '0' then redis.call('SET', KEYS[nf + nr + 1], ARGV[4], 'PX', ttl)
elseif nc > 0 then redis.call('SET', KEYS[nf + nr + 1], ARGV[4]) end
local count = 0
if nc == 2 then count = redis.call('INCR', KEYS[nf + nr + 2]) end
if count == 1 and ttl ~= '0' then redis.call('PEXPIRE', KEYS[nf + nr + 2], ttl) end
for i = 1, nr do
  if redis.call('GET', KEYS[nf + i]) == ARGV[4 + nf + i] then redis.call('DEL', KEYS[nf + i]) end
end
return {0, count}
`;

/** Units of work on Upstash Redis. Throws `store_unavailable` when Upstash fails. */
export class UpstashUnitOfWorkStore implements UnitOfWorkStore {
  readonly #reads: ReadBatcher;
  readonly #prefix: string;
  readonly #token: () => string;
  readonly #commit: LuaScript;

  constructor(config: UpstashUnitOfWorkStoreConfig) {
    this.#reads = config.reads ?? new ReadBatcher(config.redis);
    this.#prefix = config.keyPrefix;
    this.#token = config.token ?? (() => crypto.randomUUID());
    this.#commit = luaScript(config.redis, COMMIT);
  }

  /** Reads go through the same pipeline, queued after the leases' SET NX. */
  readonly readsFollowBegin = true;

  begin(request: BeginRequest): Promise<Begun> {
    const tokens = request.leases.map(() => this.#token());
    return redisCall("begin work", async () => {
      // Through the shared pipeline (not atomic, as a pipeline of its own would not be either):
      // the units of work that begin together (a tick's steps) share one request.
      const { claim } = request;
      const replies = await Promise.all([
        ...request.leases.map((lease, i) =>
          this.#reads.read((p) =>
            p.set(lockKey(this.#prefix, lease.key), tokens[i], {
              nx: true,
              px: Math.max(1, Math.ceil(lease.ttlMs)),
            })
          )
        ),
        ...request.documents.map((key) =>
          this.#reads.read((p) =>
            p.hget(documentHashKey(this.#prefix, key.collection, key.scope), key.id)
          )
        ),
        ...(claim
          ? [this.#reads.read((p) => p.get(idempotencyKey(this.#prefix, claim.scope, claim.key)))]
          : []),
      ]);
      const n = request.leases.length;
      return {
        leases: request.leases.map((lease, i) =>
          replies[i] === "OK" ? { key: lease.key, token: tokens[i] } : null
        ),
        documents: request.documents.map((key, i) => {
          const raw = replies[n + i];
          return raw === null || raw === undefined ? null : decodeDocument(key.id, raw);
        }),
        claimed: decodeClaimed(claim ? replies[n + request.documents.length] : null),
      };
    });
  }

  async commit(request: CommitRequest): Promise<Committed> {
    const { documents, fences, release, claim } = request;
    if (documents.length === 0 && release.length === 0 && !claim) return { count: null };
    assertOneWritePerDocument(documents);
    const reply = await redisCall("commit work", () =>
      this.#commit.exec(
        [
          ...[...fences, ...release].map((lease) => lockKey(this.#prefix, lease.key)),
          ...(claim ? [idempotencyKey(this.#prefix, claim.scope, claim.key)] : []),
          ...(claim?.counter ? [idempotencyKey(this.#prefix, claim.scope, claim.counter)] : []),
          ...documents.map((w) => documentHashKey(this.#prefix, w.key.collection, w.key.scope)),
        ],
        [
          String(fences.length),
          String(release.length),
          claim ? (claim.counter ? "2" : "1") : "0",
          claim ? encode(claim.value) : "",
          ...[...fences, ...release].map((lease) => lease.token),
          ...documents.flatMap((w) => [
            w.key.id,
            String(w.expectedVersion),
            encodeDocument(w.expectedVersion + 1, w.value),
          ]),
          String(ttlArgument(claim)),
        ],
      ));
    if (reply === "claimed" && claim) throw claimTaken(claim);
    if (Array.isArray(reply) && Number(reply[0]) === 0) {
      return { count: claim?.counter ? Number(reply[1]) : null };
    }
    const code = Number(reply);
    if (!Number.isInteger(code) || code === 0) unexpectedReply("commit work");
    if (code < 0) throw new LeaseLostError(fences[-code - 1].key);
    throw versionConflict(documents[code - 1].key);
  }
}

/** A claim's stored value as read by `begin` (JSON, as the idempotency store keeps it). */
function decodeClaimed(raw: unknown): unknown {
  return raw === null || raw === undefined ? null : JSON.parse(String(raw));
}
