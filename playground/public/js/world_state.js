/**
 * @module One open world as the page knows it: the world record, environment, agents and recent
 * events, loaded once and then kept current by the world's SSE event stream.
 */
import { api, followEvents, listAll, worldPath } from "./api.js";

/**
 * Most events the page keeps (a tick of the example town logs about 75, most of them object
 * changes the timeline folds away).
 */
export const EVENT_LIMIT = 1000;

/** The state of one open world; views subscribe to "world", "agents", "env", "events", "stream". */
export class WorldState {
  #listeners = new Map();
  #stop = new AbortController();
  #pending = new Set();
  #scheduled = false;
  #conversations = new Map();

  constructor(worldId) {
    this.id = worldId;
    this.world = null;
    /** The environment tree, or null when the world has none. */
    this.env = null;
    /** Agents by id, with `emoji` added from the latest action event. */
    this.agents = new Map();
    /** Recent events, oldest first. */
    this.events = [];
    this.stream = { state: "connecting", message: "" };
    /** The last event already logged when the view opened: later ones happen live. */
    this.liveFrom = Infinity;
  }

  /** A conversation with its lines, read once per view. @throws ApiError */
  conversation(id) {
    if (!this.#conversations.has(id)) {
      const read = api("GET", worldPath(this.id, `/conversations/${encodeURIComponent(id)}`));
      read.catch(() => this.#conversations.delete(id));
      this.#conversations.set(id, read);
    }
    return this.#conversations.get(id);
  }

  /** Loads the world, its environment and agents. @throws ApiError */
  async load() {
    const [world, env, agents] = await Promise.all([
      api("GET", worldPath(this.id)),
      api("GET", worldPath(this.id, "/environment")),
      listAll(worldPath(this.id, "/agents"), "agents"),
    ]);
    this.world = world;
    this.env = hasAreas(env);
    this.agents = new Map(agents.map((a) => [a.id, { ...a, emoji: null }]));
  }

  /**
   * Starts following the event stream with the last {@link EVENT_LIMIT} events as history: the
   * JSON page's `latest` says where the log ends, so a long-lived world is not replayed whole.
   */
  async follow() {
    let after = 0;
    try {
      const page = await api("GET", worldPath(this.id, "/events?limit=1"), {
        signal: this.#stop.signal,
      });
      if (typeof page.latest === "number") {
        after = Math.max(0, page.latest - EVENT_LIMIT);
        this.liveFrom = page.latest;
      }
    } catch {
      // The stream reports its own errors; start from the beginning.
    }
    if (this.liveFrom === Infinity) this.liveFrom = 0;
    if (this.#stop.signal.aborted) return;
    followEvents(this.id, {
      after,
      signal: this.#stop.signal,
      onEvents: (batch) => this.apply(batch),
      onStatus: (state, message = "") => {
        this.stream = { state, message };
        this.#emit("stream");
      },
    });
  }

  /** Stops the stream; the state is dropped with the view. */
  close() {
    this.#stop.abort();
  }

  /** Listens to one kind of change; returns the unsubscribe function. */
  on(kind, fn) {
    if (!this.#listeners.has(kind)) this.#listeners.set(kind, new Set());
    this.#listeners.get(kind).add(fn);
    return () => this.#listeners.get(kind).delete(fn);
  }

  /** The world clock after a tick answered (the stream brings the same shortly after). */
  setClock(clock) {
    if (!this.world || clock.now < this.world.clock.now) return;
    this.world = { ...this.world, clock };
    this.#emit("world");
  }

  /** Reloads the environment after an edit made here. */
  async reloadEnvironment() {
    this.env = hasAreas(await api("GET", worldPath(this.id, "/environment")));
    this.#emit("env");
  }

  /** Adds an agent created here (a card import) before its events arrive. */
  addAgent(agent) {
    this.agents.set(agent.id, { ...agent, emoji: null });
    this.#emit("agents");
  }

  /** Applies events from the stream to the agents, objects and clock. */
  apply(batch) {
    for (const event of batch) {
      const agent = event.agentId ? this.agents.get(event.agentId) : undefined;
      switch (event.type) {
        case "tick":
          if (this.world && event.at > this.world.clock.now) {
            this.world = { ...this.world, clock: { ...this.world.clock, now: event.at } };
            this.#changed("world");
          }
          break;
        case "world.paused":
        case "world.resumed":
          if (this.world) {
            const paused = event.type === "world.paused";
            this.world = { ...this.world, clock: { ...this.world.clock, paused } };
            this.#changed("world");
          }
          break;
        case "action":
          if (agent) {
            Object.assign(agent, {
              action: event.action,
              emoji: event.emoji,
              location: event.location,
            });
            this.#changed("agents");
          }
          break;
        case "moved":
          if (agent) {
            agent.location = event.to;
            this.#changed("agents");
          }
          break;
        case "object_state":
          if (this.#setObjectState(event.path, event.state)) this.#changed("env");
          break;
      }
    }
    this.events.push(...batch);
    if (this.events.length > EVENT_LIMIT) this.events.splice(0, this.events.length - EVENT_LIMIT);
    this.#changed("events", batch);
  }

  #setObjectState(path, state) {
    const [areaName, subName, objectName] = String(path).split(":");
    const object = this.env?.areas.find((a) => a.name === areaName)
      ?.subAreas.find((s) => s.name === subName)
      ?.objects.find((o) => o.name === objectName);
    if (!object) return false;
    object.state = state;
    return true;
  }

  /** Batches re-renders to one per animation frame, however many events arrive. */
  #changed(kind) {
    this.#pending.add(kind);
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      const kinds = [...this.#pending];
      this.#pending.clear();
      for (const k of kinds) this.#emit(k);
    });
  }

  #emit(kind) {
    for (const fn of this.#listeners.get(kind) ?? []) fn(this);
  }
}

/** The environment, or null for a world that has none (its areas are empty). */
function hasAreas(env) {
  return env.areas.length > 0 ? env : null;
}

/** Every object path of an environment, "Area:Sub-area:Object". */
export function objectPaths(env) {
  return (env?.areas ?? []).flatMap((a) =>
    a.subAreas.flatMap((s) => s.objects.map((o) => `${a.name}:${s.name}:${o.name}`))
  );
}
