/**
 * @module The timeline: recent events of the world (actions, conversations with their lines,
 * reflections, object changes, errors), newest first, filterable by agent.
 */
import { api, worldPath } from "./api.js";
import { busy, clockTime, empty, errorState, h, nextId, replace } from "./dom.js";
import { requestedAction } from "./game_hooks.js";

/** Most events drawn at once; older ones stay in the state for filtering. */
const SHOWN = 150;

function nameOf(state, id) {
  return state.agents.get(id)?.name ?? id;
}

function conversationLines(state, event) {
  const box = h("div", { class: "lines" });
  const button = h("button", { class: "small" }, `Show the ${event.lines} lines`);
  button.addEventListener("click", async () => {
    try {
      const talk = await busy(
        button,
        () =>
          api(
            "GET",
            worldPath(state.id, `/conversations/${encodeURIComponent(event.conversationId)}`),
          ),
        "Loading…",
      );
      button.remove();
      replace(
        box,
        h(
          "ol",
          { class: "transcript" },
          talk.lines.map((l) =>
            h(
              "li",
              null,
              h("strong", null, `${l.name}: `),
              l.text,
              h("span", { class: "muted" }, ` ${clockTime(l.at)}`),
            )
          ),
        ),
        h("p", { class: "muted" }, `Ended by ${talk.endedBy.replace("_", " ")}`),
      );
    } catch (err) {
      replace(box, errorState(err));
    }
  });
  return [button, box];
}

/** What one event says, as nodes. */
function describe(state, e) {
  const who = e.agentId ? h("strong", null, nameOf(state, e.agentId)) : null;
  switch (e.type) {
    case "tick":
      return [
        `Tick to ${clockTime(e.at)}: ${e.steps} agents stepped`,
        e.failed ? h("span", { class: "badge bad" }, `${e.failed} failed`) : null,
        h("span", { class: "muted" }, ` · ${e.calls} model calls`),
      ];
    case "action":
      return [
        `${e.emoji ?? ""} `,
        who,
        ` ${e.action}`,
        h("span", { class: "muted" }, ` at ${e.location}`),
      ];
    case "moved":
      return [who, ` moved to ${e.to}`];
    case "action.requested":
      return requestedAction(who, e);
    case "perceived":
      return [who, ` noticed ${e.count}: `, (e.observations ?? []).join("; ")];
    case "reaction":
      return [
        who,
        ` decided to ${e.decision}`,
        e.vetoed ? h("span", { class: "muted" }, ` (vetoed: ${e.vetoed})`) : null,
        e.reason ? `: ${e.reason}` : "",
      ];
    case "conversation": {
      const other = (e.participants ?? []).find((p) => p !== e.agentId);
      return [
        "💬 ",
        who,
        ` talked with ${nameOf(state, other)}`,
        e.topic ? ` about ${e.topic}` : "",
        conversationLines(state, e),
      ];
    }
    case "reflection":
      return [
        "💭 ",
        who,
        " reflected: ",
        h("ul", null, (e.insights ?? []).map((i) => h("li", null, i))),
      ];
    case "object_state":
      return [
        `🔧 ${e.path}: `,
        e.previous ? h("s", null, e.previous) : null,
        ` → ${e.state}`,
        e.agentId ? [" (", who, ")"] : null,
      ];
    case "plan":
      return [
        "🗓 ",
        who,
        e.replan ? ` re-planned ${e.date}` : ` planned ${e.date}`,
        e.reason ? `: ${e.reason}` : "",
      ];
    case "world.paused":
    case "world.resumed":
      return [
        e.type === "world.paused" ? "⏸ World paused" : "▶ World resumed",
        e.message ? `: ${e.message}` : "",
      ];
    case "agent_error":
    case "tick_error":
      return [
        who ?? "Tick",
        " failed: ",
        h("span", { class: "error-text" }, e.error ?? e.code ?? "error"),
      ];
    default:
      return [who, ` ${e.type}`];
  }
}

/** The timeline tab. */
export function timeline(panel, state, { onAgent }) {
  const filterId = nextId("filter");
  const filter = h("select", { id: filterId });
  const list = h("ol", { class: "events", "aria-label": "Events, newest first" });
  const count = h("p", { class: "muted small-text" });
  replace(
    panel,
    h("h2", null, "Timeline"),
    h("div", { class: "field inline" }, h("label", { for: filterId }, "Show events of"), filter),
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
    const events = state.events.filter((e) =>
      !chosen || e.agentId === chosen || (e.participants ?? []).includes(chosen)
    );
    const shown = events.slice(-SHOWN).reverse();
    count.textContent = events.length
      ? `${events.length} recent events${events.length > SHOWN ? `, newest ${SHOWN} shown` : ""}`
      : "";
    if (shown.length === 0) {
      replace(
        list,
        h(
          "li",
          null,
          empty(
            chosen
              ? "No events for this agent yet."
              : "No events yet: press Tick to advance the town.",
          ),
        ),
      );
      return;
    }
    replace(list, shown.map(item));
    for (const seq of nodes.keys()) if (seq < state.events[0]?.seq) nodes.delete(seq);
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
  filter.addEventListener("change", render);
  state.on("events", render);
  state.on("agents", renderFilter);
  renderFilter();
  render();
}
