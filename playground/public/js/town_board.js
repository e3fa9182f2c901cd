/**
 * @module The town board: the environment's areas laid out as a map (town_layout.js), the rooms
 * (sub-areas) inside them, the agents as tokens standing in their rooms (town_tokens.js), and the
 * objects with their states behind a toggle. The map is built once per environment shape; a tick
 * only moves tokens and rewrites what changed, so Play stays smooth.
 */
import { empty, h, replace } from "./dom.js";
import { layoutTown, placeAgents } from "./town_layout.js";
import { makeToken, moveTokens, standing, updateToken } from "./town_tokens.js";
import { talkOnBoard } from "./town_talk.js";

/** Busiest places named in the overview line above the map. */
const OVERVIEW_PLACES = 5;

function objectItem(path, object, onObject) {
  const button = h("button", {
    class: "object",
    "data-object": path,
    onClick: () => onObject(path),
  });
  setObject(button, object);
  return h("li", null, button);
}

function setObject(button, object) {
  const key = `${object.name}\u0000${object.state}`;
  if (button.dataset.key === key) return;
  button.dataset.key = key;
  button.setAttribute("aria-label", `${object.name}: ${object.state || "no state"} (edit state)`);
  replace(
    button,
    h("span", { class: "object-name" }, object.name),
    object.state ? h("span", { class: "object-state" }, object.state) : null,
  );
}

/** Sets CSS custom properties (the CSP allows the CSSOM, not style attributes). */
function setVars(el, vars) {
  for (const [name, value] of Object.entries(vars)) el.style.setProperty(name, String(value));
  return el;
}

/** The names of the tree, without states: the map is rebuilt only when this changes. */
function shapeOf(env) {
  return JSON.stringify(
    (env?.areas ?? []).map((a) => [a.name, a.common, a.position, a.subAreas.map((s) => s.name)]),
  );
}

/** The board; follows agents and the environment. */
export function townBoard(state, { onAgent, onObject }) {
  const overview = h("p", { class: "overview", "aria-live": "off" });
  const objectsToggle = h("button", {
    class: "small",
    id: "show-objects",
    "aria-pressed": "false",
    onClick: () => {
      const on = objectsToggle.getAttribute("aria-pressed") !== "true";
      objectsToggle.setAttribute("aria-pressed", String(on));
      element.classList.toggle("with-objects", on);
    },
  }, "Show objects");
  const map = h("div", { class: "map" });
  const view = h("div", { class: "map-view", tabindex: "-1" }, map);
  const unplacedList = h("ul", { class: "agents" });
  const unplacedTitle = h("h3", null, "Not on the map yet");
  const unplaced = h(
    "section",
    { class: "area unplaced", "aria-label": "Not on the map", hidden: true },
    unplacedTitle,
    unplacedList,
  );
  const notes = h("div");
  const element = h(
    "section",
    { class: "board", "aria-labelledby": "board-title" },
    h("h2", { id: "board-title", class: "sr-only" }, "Town"),
    h("div", { class: "board-head" }, overview, objectsToggle),
    notes,
    view,
    unplaced,
  );

  /** "Area:Sub-area" → {section, agents (ul), objects: path → button}. */
  let rooms = new Map();
  /** Area name → {article, count}. */
  let areaEls = new Map();
  const tokens = new Map();
  let shape = null;
  let scrolled = false;

  function buildMap() {
    rooms = new Map();
    areaEls = new Map();
    const areas = state.env?.areas ?? [];
    const { columns, cells } = layoutTown(areas);
    map.style.setProperty("--cols", String(columns));
    replace(
      map,
      areas.map((area, i) => {
        const { col, row, span } = cells[i];
        const count = h("span", { class: "count", hidden: true });
        const article = h(
          "article",
          {
            class: `area${area.common ? " common" : ""}${span > 1 ? " wide" : ""}`,
            "aria-label": area.name,
            "data-area": area.name,
          },
          h("h3", null, h("span", { class: "area-name" }, area.name), count),
          h(
            "div",
            { class: "rooms" },
            area.subAreas.map((sub) => {
              const key = `${area.name}:${sub.name}`;
              const agents = h("ul", { class: "agents", "aria-label": `People in ${sub.name}` });
              const objects = new Map();
              const section = h(
                "section",
                { class: "sub-area", "aria-label": `${area.name}: ${sub.name}`, "data-room": key },
                h("h4", null, sub.name),
                agents,
                h(
                  "ul",
                  { class: "objects" },
                  sub.objects.map((o) => {
                    const item = objectItem(`${key}:${o.name}`, o, onObject);
                    objects.set(`${key}:${o.name}`, item.firstElementChild);
                    return item;
                  }),
                ),
              );
              rooms.set(key, { section, agents, objects });
              return section;
            }),
          ),
        );
        // Set through the CSSOM: the page's CSP refuses style attributes.
        setVars(article, { "--col": col, "--row": row, "--span": span });
        areaEls.set(area.name, { article, count });
        return article;
      }),
    );
    view.hidden = areas.length === 0;
  }

  function updateObjects() {
    for (const area of state.env?.areas ?? []) {
      for (const sub of area.subAreas) {
        const room = rooms.get(`${area.name}:${sub.name}`);
        for (const o of sub.objects) {
          const button = room?.objects.get(`${area.name}:${sub.name}:${o.name}`);
          if (button) setObject(button, o);
        }
      }
    }
  }

  /** Puts every token in its room (gliding those that moved) and updates the counts. */
  function placeTokens() {
    const { byRoom, unplaced: away } = placeAgents(state.agents.values(), new Set(rooms.keys()));
    const moves = [];
    const want = (agent, list) => {
      let slot = tokens.get(agent.id);
      if (!slot) {
        slot = makeToken(agent, onAgent);
        tokens.set(agent.id, slot);
      } else updateToken(slot, agent);
      if (slot.parentElement !== list) moves.push({ slot, to: list });
    };
    for (const [key, agents] of byRoom) for (const a of agents) want(a, rooms.get(key).agents);
    for (const a of away) want(a, unplacedList);
    for (const [id, slot] of tokens) {
      if (!state.agents.has(id)) {
        slot.remove();
        tokens.delete(id);
      }
    }
    const firsts = standing(moves);
    const perArea = new Map();
    for (const [key, agents] of byRoom) {
      const area = key.slice(0, key.indexOf(":"));
      perArea.set(area, (perArea.get(area) ?? 0) + agents.length);
    }
    for (const [name, { article, count }] of areaEls) {
      const n = perArea.get(name) ?? 0;
      article.classList.toggle("occupied", n > 0);
      count.hidden = n === 0;
      count.textContent = String(n);
      count.setAttribute("aria-label", `${n} here`);
      setVars(article, { "--order": -n });
    }
    // After the rooms have their final size, so each glide ends where the token lands.
    moveTokens(moves, firsts);
    unplaced.hidden = away.length === 0;
    unplacedTitle.textContent = state.env ? "Not on the map yet" : "Agents";
    renderOverview(perArea);
    if (!scrolled && byRoom.size > 0) {
      scrolled = true;
      requestAnimationFrame(showPeople);
    }
  }

  /** One line above the map: how many people, and the busiest places as links to them. */
  function renderOverview(perArea) {
    const placed = [...perArea.values()].reduce((a, b) => a + b, 0);
    const busiest = [...perArea].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    replace(
      overview,
      state.agents.size
        ? h("strong", null, `${state.agents.size} ${state.agents.size === 1 ? "person" : "people"}`)
        : null,
      state.agents.size && placed < state.agents.size
        ? ` (${state.agents.size - placed} not on the map)`
        : null,
      busiest.slice(0, OVERVIEW_PLACES).map(([name, n]) =>
        h("button", {
          class: "small link place",
          "aria-label": `Show ${name} (${n} here)`,
          onClick: () => focusArea(name),
        }, `${name} ${n}`)
      ),
      busiest.length > OVERVIEW_PLACES
        ? h("span", { class: "muted" }, `+${busiest.length - OVERVIEW_PLACES} more places`)
        : null,
    );
  }

  function focusArea(name) {
    const article = areaEls.get(name)?.article;
    if (!article) return;
    article.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "smooth" });
    article.classList.remove("flash");
    void article.offsetWidth; // restart the highlight
    article.classList.add("flash");
  }

  /**
   * Scrolls the map (when it scrolls on its own, on wide screens) so the window of it holding the
   * most people is in view: at 07:00 that is the homes, at noon the cafe and the college.
   */
  function showPeople() {
    if (view.scrollHeight <= view.clientHeight + 4) return;
    const top0 = view.getBoundingClientRect().top - view.scrollTop;
    const ys = [...tokens.values()].filter((s) => map.contains(s))
      .map((s) => s.getBoundingClientRect().top - top0);
    let best = { top: 0, n: -1 };
    for (const { article } of areaEls.values()) {
      const top = article.getBoundingClientRect().top - top0;
      const n = ys.filter((y) => y >= top && y < top + view.clientHeight - 40).length;
      if (n > best.n || (n === best.n && top < best.top)) best = { top, n };
    }
    view.scrollTop = Math.max(0, best.top - 8);
  }

  function render() {
    const next = shapeOf(state.env);
    if (next !== shape) {
      shape = next;
      buildMap();
    } else updateObjects();
    replace(
      notes,
      state.env ? null : empty(
        "This world has no environment (areas, sub-areas, objects): agents are listed below. Set one with PUT /v1/worlds/{world}/environment, or create the smallville example town.",
      ),
      !state.env && state.agents.size === 0
        ? empty("No agents yet: import a Character Card in the Edit world tab.")
        : null,
    );
    objectsToggle.hidden = !state.env;
    placeTokens();
  }
  state.on("agents", render);
  state.on("env", render);
  render();
  talkOnBoard(state, { tokenOf: (id) => tokens.get(id) ?? null });
  return {
    element,
    /** The token of an agent, to bring back into view. */
    tokenOf: (id) => tokens.get(id) ?? null,
  };
}
