/**
 * @module Game hooks in the playground (README "Hooking a game in"): the agent's goals beside
 * its plan, with their status and the items serving them; the game actions a reply asked for,
 * and those dropped, in the Talk transcript; `action.requested` and `action.dropped` events in
 * the timeline.
 */
import { agentPath, api } from "./api.js";
import { busy, clockTime, errorState, h, replace } from "./dom.js";

/** `give_item {"item":"lantern"}`. */
function callText(action) {
  const args = JSON.stringify(action.arguments ?? {});
  return `${action.name} ${args === "{}" ? "" : args}`.trim();
}

/** The game actions of a reply and the ones dropped with their reason, or null when none. */
export function replyActions(result) {
  const actions = result.actions ?? [];
  const dropped = result.droppedActions ?? [];
  if (actions.length === 0 && dropped.length === 0) return null;
  return h(
    "ul",
    { class: "game-actions", "aria-label": "Game actions" },
    actions.map((a) =>
      h(
        "li",
        null,
        h("span", { class: "badge neutral", title: `id ${a.id}` }, "▶ action"),
        " ",
        h("code", null, callText(a)),
      )
    ),
    dropped.map((d) =>
      h(
        "li",
        null,
        h("span", { class: "badge bad" }, "dropped"),
        " ",
        h("code", null, d.name),
        h("span", { class: "muted" }, ` ${d.reason}`),
      )
    ),
  );
}

/** The timeline's line of an `action.requested` event. */
export function requestedAction(who, e) {
  return ["▶ ", who, " asks the game: ", h("code", null, callText(e))];
}

/** The timeline's line of an `action.dropped` event: the step's game action and why it failed. */
export function droppedAction(who, e) {
  return [
    "✖ ",
    who,
    " chose a game action that was dropped: ",
    h("code", null, e.name),
    h("span", { class: "muted" }, ` ${e.reason ?? ""}`),
  ];
}

/** A badge on a plan item that serves a goal. */
export function goalBadge(item) {
  return item.goalId
    ? h("span", { class: "badge neutral", title: "serves this goal" }, `goal: ${item.goalId}`)
    : null;
}

function goalItem(state, agentId, goal, reload) {
  const done = h("button", { class: "small", type: "button" }, "Mark done");
  done.addEventListener("click", async () => {
    try {
      await busy(
        done,
        () =>
          api("PATCH", agentPath(state.id, agentId, `/goals/${encodeURIComponent(goal.id)}`), {
            body: { status: "done" },
          }),
        "Saving…",
      );
      reload();
    } catch (err) {
      done.replaceWith(errorState(err));
    }
  });
  return h(
    "li",
    { class: `goal ${goal.status}` },
    h("span", { class: `badge ${goal.status === "active" ? "neutral" : "block"}` }, goal.status),
    ` ${goal.description} `,
    h(
      "span",
      { class: "muted" },
      `priority ${goal.priority}${goal.until ? ` · until ${goal.until.replace("T", " ")}` : ""}`,
    ),
    goal.servedBy.length
      ? h(
        "ul",
        null,
        goal.servedBy.map((i) =>
          h("li", { class: "muted" }, `${clockTime(i.start)}–${clockTime(i.end)} ${i.description}`)
        ),
      )
      : null,
    goal.status === "active" ? done : null,
  );
}

/** The agent's goals (GET …/goals), shown beside its plan; nothing while it has none. */
export function goalsBox(state, agentId) {
  const box = h("div", { class: "goals", "aria-live": "polite" });
  const load = async () => {
    try {
      const goals = await api("GET", agentPath(state.id, agentId, "/goals"));
      if (goals.length === 0) return replace(box);
      replace(
        box,
        h("h4", null, "Goals"),
        h("ul", null, goals.map((g) => goalItem(state, agentId, g, load))),
      );
    } catch (err) {
      replace(box, errorState(err));
    }
  };
  load();
  return box;
}
