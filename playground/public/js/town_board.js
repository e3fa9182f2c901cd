/**
 * @module The town board: the environment's areas and sub-areas laid out like a map, the agents
 * standing in them (emoji and current action) and the objects with their states.
 */
import { empty, h, replace } from "./dom.js";

/** Two-letter initials for an agent without an emoji yet. */
function initials(name) {
  return name.split(/\s+/).map((w) => w[0] ?? "").join("").slice(0, 2).toUpperCase();
}

function agentChip(agent, onAgent) {
  const action = agent.action ?? "not placed yet";
  return h(
    "li",
    null,
    h(
      "button",
      {
        class: "agent-chip",
        "data-agent": agent.id,
        "data-kind": agent.kind ?? "agent",
        "aria-label": `${agent.name}: ${action}`,
        title: `${agent.name}: ${action}`,
        onClick: () => onAgent(agent.id),
      },
      h("span", { class: "avatar", "aria-hidden": "true" }, agent.emoji || initials(agent.name)),
      h(
        "span",
        { class: "who" },
        h("span", { class: "name" }, agent.name),
        h("span", { class: "action" }, action),
      ),
    ),
  );
}

function objectItem(path, object, onObject) {
  return h(
    "li",
    null,
    h(
      "button",
      {
        class: "object",
        "data-object": path,
        "aria-label": `${object.name}: ${object.state || "no state"} (edit state)`,
        onClick: () => onObject(path),
      },
      h("span", { class: "object-name" }, object.name),
      object.state ? h("span", { class: "object-state" }, object.state) : null,
    ),
  );
}

/** Groups agents by "Area:Sub-area"; those elsewhere go to `unplaced`. */
function placeAgents(state) {
  const bySub = new Map();
  const unplaced = [];
  const known = new Set(
    (state.env?.areas ?? []).flatMap((a) => a.subAreas.map((s) => `${a.name}:${s.name}`)),
  );
  for (const agent of state.agents.values()) {
    const [area, sub] = String(agent.location ?? "").split(":");
    const key = `${area}:${sub}`;
    if (!agent.location || !known.has(key)) {
      unplaced.push(agent);
      continue;
    }
    if (!bySub.has(key)) bySub.set(key, []);
    bySub.get(key).push(agent);
  }
  return { bySub, unplaced };
}

/** The board; re-renders when agents or the environment change. */
export function townBoard(state, { onAgent, onObject }) {
  const element = h("section", { class: "board", "aria-labelledby": "board-title" });

  function render() {
    const { bySub, unplaced } = placeAgents(state);
    const areas = (state.env?.areas ?? []).map((area) => {
      const people = area.subAreas.reduce(
        (n, s) => n + (bySub.get(`${area.name}:${s.name}`)?.length ?? 0),
        0,
      );
      return h(
        "article",
        {
          class: `area${people ? " occupied" : ""}${area.common ? " common" : ""}`,
          "aria-label": area.name,
        },
        h(
          "h3",
          null,
          area.name,
          people
            ? h("span", { class: "count", "aria-label": `${people} here` }, String(people))
            : null,
        ),
        area.subAreas.map((sub) => {
          const here = bySub.get(`${area.name}:${sub.name}`) ?? [];
          return h(
            "section",
            { class: "sub-area", "aria-label": `${area.name}: ${sub.name}` },
            h("h4", null, sub.name),
            here.length
              ? h("ul", { class: "agents" }, here.map((a) => agentChip(a, onAgent)))
              : null,
            h(
              "ul",
              { class: "objects" },
              sub.objects.map((o) => objectItem(`${area.name}:${sub.name}:${o.name}`, o, onObject)),
            ),
          );
        }),
      );
    });
    replace(
      element,
      h("h2", { id: "board-title", class: "sr-only" }, "Town"),
      state.env ? null : empty(
        "This world has no environment (areas, sub-areas, objects): agents are listed below. Set one with PUT /v1/worlds/{world}/environment, or create the smallville example town.",
      ),
      areas.length ? h("div", { class: "areas" }, areas) : null,
      unplaced.length
        ? h(
          "section",
          { class: "area unplaced", "aria-label": "Not on the map" },
          h("h3", null, state.env ? "Not on the map yet" : "Agents"),
          h(
            "ul",
            { class: "agents" },
            unplaced.map((a) => agentChip(a, onAgent)),
          ),
        )
        : null,
      !state.env && state.agents.size === 0
        ? empty("No agents yet: import a Character Card in the Edit world tab.")
        : null,
    );
  }
  state.on("agents", render);
  state.on("env", render);
  render();
  return { element };
}
