/**
 * @module The timeline: recent events of the world, newest first. By default it tells the story
 * (conversations, reflections, plans, arrivals, errors); object-state changes, a dozen or more per
 * tick, fold into one line per tick that opens. Filterable by agent and by kind.
 */
import { clockTime, empty, h, nextId, replace } from "./dom.js";
import { describe, nameOf } from "./timeline_describe.js";

/** Most rows drawn at once; older events stay in the state for filtering. */
const SHOWN = 150;

/** Event types of the story view. */
const STORY = new Set([
  "tick",
  "conversation",
  "reflection",
  "plan",
  "moved",
  "agent_error",
  "tick_error",
  "world.paused",
  "world.resumed",
  "budget.exhausted",
  "object_state",
  "action.requested",
  "action.dropped",
]);

/** The kinds offered in the "Show" menu: which events each keeps, and whether to fold. */
const KINDS = [
  { id: "story", label: "Talk, reflections, plans, arrivals", keep: (e) => STORY.has(e.type) },
  { id: "all", label: "Everything", keep: () => true },
  { id: "action", label: "Actions", keep: (e) => e.type === "action" },
  { id: "object_state", label: "Object changes", keep: (e) => e.type === "object_state" },
];

/**
 * Rows for events newest first: runs of object changes of one tick become one fold
 * `{fold: events}`, everything else stays an event.
 */
export function foldRows(events) {
  const rows = [];
  for (const e of events) {
    const last = rows.at(-1);
    if (e.type !== "object_state") rows.push(e);
    else if (last?.fold && last.fold[0].at === e.at) last.fold.push(e);
    else rows.push({ fold: [e] });
  }
  return rows;
}

/** The timeline tab. */
export function timeline(panel, state, { onAgent }) {
  const filterId = nextId("filter");
  const kindId = nextId("kind");
  const filter = h("select", { id: filterId });
  const kind = h(
    "select",
    { id: kindId },
    KINDS.map((k) => h("option", { value: k.id }, k.label)),
  );
  const list = h("ol", { class: "events", "aria-label": "Events, newest first" });
  const count = h("p", { class: "muted small-text" });
  replace(
    panel,
    h("h2", null, "Timeline"),
    h(
      "div",
      { class: "filters" },
      h("div", { class: "field inline" }, h("label", { for: filterId }, "Show events of"), filter),
      h("div", { class: "field inline" }, h("label", { for: kindId }, "Show"), kind),
    ),
    count,
    list,
  );

  function renderFilter() {
    const chosen = filter.value;
    replace(
      filter,
      h("option", { value: "" }, "All agents"),
      [...state.agents.values()].sort((a, b) => a.name.localeCompare(b.name))
        .map((a) => h("option", { value: a.id }, a.name)),
    );
    filter.value = chosen;
  }

  function render() {
    const chosen = filter.value;
    const k = KINDS.find((x) => x.id === kind.value) ?? KINDS[0];
    const events = state.events.filter((e) =>
      k.keep(e) && (!chosen || e.agentId === chosen || (e.participants ?? []).includes(chosen))
    );
    const newest = events.slice(-SHOWN * 4).reverse();
    const rows = (k.id === "object_state" ? newest : foldRows(newest)).slice(0, SHOWN);
    const folded = events.filter((e) => e.type === "object_state").length;
    count.textContent = events.length
      ? `${events.length} recent events${
        folded && k.id !== "object_state" ? ` (${folded} object changes folded by tick)` : ""
      }${rows.length === SHOWN ? `, newest ${SHOWN} rows shown` : ""}`
      : "";
    if (rows.length === 0) {
      replace(
        list,
        h(
          "li",
          null,
          empty(
            chosen
              ? "No events for this agent yet."
              : state.events.length
              ? "No events of this kind yet."
              : "No events yet: press Tick to advance the town.",
          ),
        ),
      );
      return;
    }
    replace(list, rows.map((r) => (r.fold ? foldItem(r.fold) : item(r))));
    for (const key of nodes.keys()) {
      if (Number(String(key).split(":").at(-1)) < state.events[0]?.seq) nodes.delete(key);
    }
  }

  /** One event's row, made once and reused, so opened transcripts survive new events. */
  const nodes = new Map();
  function item(e) {
    let node = nodes.get(e.seq);
    if (node) return node;
    node = h(
      "li",
      { class: `event ${e.type}`, "data-type": e.type },
      h("time", { datetime: e.at }, clockTime(e.at)),
      h("div", { class: "what" }, describe(state, e)),
      e.agentId && state.agents.has(e.agentId)
        ? h(
          "button",
          {
            class: "small link",
            "aria-label": `Open ${nameOf(state, e.agentId)}`,
            onClick: () => onAgent(e.agentId),
          },
          "Open",
        )
        : null,
    );
    nodes.set(e.seq, node);
    return node;
  }

  /** One tick's object changes as a line that opens into the list. */
  function foldItem(events) {
    const key = `fold:${events.length}:${events[0].seq}`;
    let node = nodes.get(key);
    if (node) return node;
    const n = events.length;
    node = h(
      "li",
      { class: "event fold", "data-type": "object_state_fold" },
      h("time", { datetime: events[0].at }, clockTime(events[0].at)),
      h(
        "details",
        { class: "what" },
        h("summary", null, `🔧 ${n} ${n === 1 ? "object" : "objects"} changed`),
        h("ul", { class: "folded" }, events.map((e) => h("li", null, describe(state, e)))),
      ),
    );
    nodes.set(key, node);
    return node;
  }
  filter.addEventListener("change", render);
  kind.addEventListener("change", render);
  state.on("events", render);
  state.on("agents", renderFilter);
  renderFilter();
  render();
}
