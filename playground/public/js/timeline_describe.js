/**
 * @module What one timeline event says, as nodes: actions, moves, conversations (with their
 * lines on demand), reflections, plans, object changes and errors.
 */
import { busy, clockTime, errorState, h, replace } from "./dom.js";
import { droppedAction, requestedAction } from "./game_hooks.js";

/** "A", "A and B", "A, B and C". */
function listed(names) {
  if (names.length <= 1) return names[0] ?? "someone";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

export function nameOf(state, id) {
  return state.agents.get(id)?.name ?? id;
}

function conversationLines(state, event) {
  const box = h("div", { class: "lines" });
  const button = h("button", { class: "small" }, `Show the ${event.lines} lines`);
  button.addEventListener("click", async () => {
    try {
      const talk = await busy(
        button,
        () => state.conversation(event.conversationId),
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
export function describe(state, e) {
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
      return ["🚶 ", who, ` arrived at ${e.to}`];
    case "action.requested":
      return requestedAction(who, e);
    case "action.dropped":
      return droppedAction(who, e);
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
      const others = (e.participants ?? []).filter((p) => p !== e.agentId)
        .map((p) => nameOf(state, p));
      return [
        others.length > 1 ? "👥 " : "💬 ",
        who,
        ` talked with ${listed(others)}`,
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
