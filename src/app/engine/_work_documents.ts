/**
 * @module Private to the unit of work: documents read once and then served from memory, with
 * writes collected for one commit.
 */
import { ConflictError } from "../../domain/mod.ts";
import type {
  DocumentKey,
  DocumentStore,
  DocumentWrite,
  FencedWrite,
  Lease,
  ReplaceOptions,
  Versioned,
} from "../../ports/mod.ts";

interface Entry {
  key: DocumentKey;
  /** The version read from the store (0: absent); the commit checks it is still the stored one. */
  read: number;
  /** The version now, counting the work's own writes (0: absent). */
  version: number;
  value: unknown;
  /** The value as read at version `read`: what the work's changes are measured against. */
  original: unknown;
}

function keyOf(key: DocumentKey): string {
  return JSON.stringify([key.collection, key.scope, key.id]);
}

/**
 * Documents as a unit of work sees them: each read from the store once (seeded from the
 * snapshot, or when first asked for), then served from memory as copies; `create` and
 * `replace` change that copy and are collected by {@linkcode writes}, with the same answers the
 * store would give (a version mismatch is null, an existing document a conflict); a replace
 * fenced by a lease that is not the unit of work's goes to the store at once. `list` reads
 * the store and lays the work's own writes over it; deletions go to the store at once.
 */
export class WorkDocuments implements DocumentStore {
  readonly #base: DocumentStore;
  readonly #entries = new Map<string, Entry | Promise<Entry>>();
  readonly #own: (lease: Lease) => boolean;

  /** `own` tells the unit of work's leases, whose fenced writes wait for the commit. */
  constructor(base: DocumentStore, own: (lease: Lease) => boolean) {
    this.#base = base;
    this.#own = own;
  }

  /** Records a document read with the leases (null: absent). */
  seed(key: DocumentKey, doc: Versioned<unknown> | null): void {
    const version = doc?.version ?? 0;
    const value = doc?.value ?? null;
    this.#entries.set(keyOf(key), { key, read: version, version, value, original: value });
  }

  /** The writes to commit: each changed document over the version first read. */
  writes(): DocumentWrite[] {
    const out: DocumentWrite[] = [];
    for (const entry of this.#entries.values()) {
      if (entry instanceof Promise || entry.version === entry.read) continue;
      out.push({ key: entry.key, value: entry.value, expectedVersion: entry.read });
    }
    return out;
  }

  /**
   * After a commit conflicted: when every written document that changed meanwhile is one of
   * `mergeable` (and still exists), reads each afresh and lays the fields the work changed over
   * it, so the next commit re-applies the work's changes to the fresh version.
   * @returns false when the conflict stands (another document changed, or none did).
   */
  async rebase(mergeable: readonly DocumentKey[]): Promise<boolean> {
    const may = new Set(mergeable.map(keyOf));
    const written = [...this.#entries.values()].filter((e): e is Entry =>
      !(e instanceof Promise) && e.version !== e.read
    );
    const fresh = await Promise.all(written.map((entry) => this.#base.get(entry.key)));
    const moved = written.flatMap((entry, i) => {
      const now = fresh[i];
      return (now?.version ?? 0) === entry.read ? [] : [{ entry, now }];
    });
    const merges = moved.every(({ entry, now }) =>
      may.has(keyOf(entry.key)) && now !== null && isRecord(entry.value) && isRecord(now.value) &&
      isRecord(entry.original)
    );
    if (moved.length === 0 || !merges) return false;
    for (const { entry, now } of moved) {
      const value = mergeFields(entry, now!.value as Record<string, unknown>);
      Object.assign(entry, {
        read: now!.version,
        version: now!.version + 1,
        value,
        original: now!.value,
      });
    }
    return true;
  }

  async get<T>(key: DocumentKey): Promise<Versioned<T> | null> {
    const entry = await this.#entry(key);
    return entry.version === 0 ? null : copy<T>(entry);
  }

  async list<T>(collection: string, scope: string): Promise<Versioned<T>[]> {
    const byId = new Map((await this.#base.list<T>(collection, scope)).map((d) => [d.id, d]));
    for (const entry of this.#entries.values()) {
      if (entry instanceof Promise || entry.version === entry.read) continue;
      if (entry.key.collection === collection && entry.key.scope === scope) {
        byId.set(entry.key.id, copy<T>(entry));
      }
    }
    return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async create<T>(key: DocumentKey, value: T, options: FencedWrite = {}): Promise<Versioned<T>> {
    const entry = await this.#entry(key);
    if (entry.version !== 0) {
      throw new ConflictError(
        `Cannot create document "${key.id}" in "${key.collection}": it exists already`,
      );
    }
    const fence = options.fence;
    if (fence && !this.#own(fence)) {
      // As for a replace fenced by another lease: written now, while it is held.
      this.#entries.delete(keyOf(key)); // created meanwhile: the next read sees the store's
      const created = await this.#base.create(key, value, { fence });
      this.seed(key, created);
      return created;
    }
    entry.version = 1;
    entry.value = cloneDocument(value);
    return { id: key.id, value, version: 1 };
  }

  async replace<T>(
    key: DocumentKey,
    value: T,
    options: ReplaceOptions,
  ): Promise<Versioned<T> | null> {
    const { expectedVersion } = options;
    const entry = await this.#entry(key);
    if (entry.version === 0 || entry.version !== expectedVersion) return null;
    const fence = options.fence;
    if (fence && !this.#own(fence)) {
      // Fenced by a lease the unit of work does not hold (another agent's lock, released before
      // the commit): written now, while that lease is held, over the version in the store.
      const written = await this.#base.replace(key, value, { expectedVersion: entry.read, fence });
      if (written === null) {
        this.#entries.delete(keyOf(key)); // changed meanwhile: the next read sees the store's
        return null;
      }
      entry.read = entry.version = written.version;
      entry.value = entry.original = cloneDocument(value);
      return written;
    }
    entry.version = expectedVersion + 1;
    entry.value = cloneDocument(value);
    return { id: key.id, value, version: entry.version };
  }

  async delete(key: DocumentKey): Promise<boolean> {
    this.#entries.delete(keyOf(key));
    return await this.#base.delete(key);
  }

  async deleteAll(collection: string, scope: string): Promise<number> {
    for (const [k, entry] of this.#entries) {
      if (entry instanceof Promise) continue;
      if (entry.key.collection === collection && entry.key.scope === scope) this.#entries.delete(k);
    }
    return await this.#base.deleteAll(collection, scope);
  }

  /** The entry of a key, read from the store the first time (concurrent first reads share one). */
  async #entry(key: DocumentKey): Promise<Entry> {
    const k = keyOf(key);
    const known = this.#entries.get(k);
    if (known !== undefined) return await known;
    const loading = this.#base.get(key).then((doc): Entry => {
      const version = doc?.version ?? 0;
      const value = doc?.value ?? null;
      const entry = { key, read: version, version, value, original: value };
      this.#entries.set(k, entry);
      return entry;
    }, (error) => {
      this.#entries.delete(k);
      throw error;
    });
    this.#entries.set(k, loading);
    return await loading;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `fresh` with the top-level fields the entry's writes changed (set or removed) laid over it. */
function mergeFields(entry: Entry, fresh: Record<string, unknown>): Record<string, unknown> {
  const mine = entry.value as Record<string, unknown>;
  const was = entry.original as Record<string, unknown>;
  const merged = { ...fresh };
  for (const field of new Set([...Object.keys(mine), ...Object.keys(was)])) {
    if (JSON.stringify(mine[field]) === JSON.stringify(was[field])) continue;
    if (field in mine) merged[field] = mine[field];
    else delete merged[field];
  }
  return merged;
}

/**
 * A deep copy of a document's value. Documents are JSON (they are stored as JSON), so plain
 * objects and arrays are copied by hand: `structuredClone` cost a town's tick steps 3–4% of
 * their CPU (issue 25). Anything else (a Date, a Map) still goes through `structuredClone`.
 */
function cloneDocument<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(cloneDocument) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = cloneDocument((value as Record<string, unknown>)[key]);
  return out as T;
}

function copy<T>(entry: Entry): Versioned<T> {
  return { id: entry.key.id, value: cloneDocument(entry.value) as T, version: entry.version };
}
