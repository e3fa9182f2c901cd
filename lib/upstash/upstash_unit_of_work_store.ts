/**
 * @module The hosted UnitOfWorkStore: `begin` is one pipelined request (SET NX PX per lease,
 * HGET per document, GET of the claim; shared with other begins and reads started together),
 * `commit` one script (`scripts/commit_work.ts`) that checks the fences, the claim and the versions, writes the documents
 * and the claim (and counts it) and releases the leases.
 */
import {
  assertOneWritePerDocument,
  type BeginRequest,
  type Begun,
  type CommitRequest,
  type Committed,
  type UnitOfWorkStore,
} from "../../src/ports/mod.ts";
import { decodeDocument } from "./layout.ts";
import { redisCall } from "./redis_calls.ts";
import { ScriptedStore, type ScriptedStoreConfig } from "./_scripted_store.ts";
import { commitWork } from "./scripts/commit_work.ts";

/** Configuration of {@linkcode UpstashUnitOfWorkStore}. */
export interface UpstashUnitOfWorkStoreConfig extends ScriptedStoreConfig {
  /** Makes lease tokens, injectable for tests. @default crypto.randomUUID */
  token?: () => string;
}

/** Units of work on Upstash Redis. Throws `store_unavailable` when Upstash fails. */
export class UpstashUnitOfWorkStore extends ScriptedStore implements UnitOfWorkStore {
  readonly #token: () => string;

  constructor(config: UpstashUnitOfWorkStoreConfig) {
    super(config);
    this.#token = config.token ?? (() => crypto.randomUUID());
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
          this.reads.read((p) =>
            p.set(this.keys.lock(lease.key), tokens[i], {
              nx: true,
              px: Math.max(1, Math.ceil(lease.ttlMs)),
            })
          )
        ),
        ...request.documents.map((key) =>
          this.reads.read((p) => p.hget(this.keys.documents(key.collection, key.scope), key.id))
        ),
        ...(claim
          ? [this.reads.read((p) => p.get(this.keys.idempotency(claim.scope, claim.key)))]
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
    const { documents, release, claim } = request;
    if (documents.length === 0 && release.length === 0 && !claim) return { count: null };
    assertOneWritePerDocument(documents);
    // In the shared pipeline (the script checks and writes atomically on its own): the commits
    // of a tick's steps go out with the other steps' commands, not one request each.
    return await this.scripts.run(commitWork, { keys: this.keys, request }, { pipelined: true });
  }
}

/** A claim's stored value as read by `begin` (JSON, as the idempotency store keeps it). */
function decodeClaimed(raw: unknown): unknown {
  return raw === null || raw === undefined ? null : JSON.parse(String(raw));
}
