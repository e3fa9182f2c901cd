/**
 * @module An open world: the toolbar (clock, Tick, Play/Pause), the town board and the side
 * panel's tabs (agent, timeline, usage, world edits).
 */
import { api, worldPath } from "./api.js";
import { agentPanel } from "./agent_panel.js";
import { townBoard } from "./town_board.js";
import { busy, clockLabel, errorState, h, loading, replace } from "./dom.js";
import { timeline } from "./timeline.js";
import { scenesPanel } from "./scenes_panel.js";
import { usagePanel } from "./usage_panel.js";
import { worldEdits } from "./world_edits.js";
import { WorldState } from "./world_state.js";

/** The one-column layout of style.css, where the side panel follows the board. */
const narrow = matchMedia("(max-width: 820px)");

const SPEEDS = [
  { label: "1 tick every 2 s", ms: 2000 },
  { label: "1 tick every 5 s", ms: 5000 },
  { label: "1 tick every 15 s", ms: 15000 },
  { label: "As fast as ticks finish", ms: 0 },
];

/** Tabs of the side panel, in order. */
const TABS = [
  { id: "agent", label: "Agent" },
  { id: "timeline", label: "Timeline" },
  { id: "scenes", label: "Scenes" },
  { id: "usage", label: "Usage" },
  { id: "edit", label: "Edit world" },
];

function sideTabs(onSelect) {
  const buttons = new Map();
  const panels = new Map();
  const list = h("div", { class: "tabs", role: "tablist", "aria-label": "World panels" });
  for (const tab of TABS) {
    const button = h("button", {
      role: "tab",
      id: `tab-${tab.id}`,
      "aria-controls": `panel-${tab.id}`,
      "aria-selected": "false",
      tabindex: "-1",
      onClick: () => select(tab.id, true),
    }, tab.label);
    buttons.set(tab.id, button);
    panels.set(
      tab.id,
      h("section", {
        role: "tabpanel",
        id: `panel-${tab.id}`,
        "aria-labelledby": `tab-${tab.id}`,
        class: "panel",
        hidden: true,
      }),
    );
    list.append(button);
  }
  // Arrow keys move between tabs, as in the WAI-ARIA tabs pattern.
  list.addEventListener("keydown", (e) => {
    const ids = TABS.map((t) => t.id);
    const at = ids.indexOf(current);
    const to = e.key === "ArrowRight" ? at + 1 : e.key === "ArrowLeft" ? at - 1 : null;
    if (to === null) return;
    e.preventDefault();
    select(ids[(to + ids.length) % ids.length], true);
  });
  let current = null;
  function select(id, focus = false) {
    current = id;
    for (const [tabId, button] of buttons) {
      const on = tabId === id;
      button.setAttribute("aria-selected", String(on));
      button.tabIndex = on ? 0 : -1;
      panels.get(tabId).hidden = !on;
    }
    if (focus) buttons.get(id).focus();
    onSelect(id);
  }
  return {
    list,
    panels,
    select,
    get current() {
      return current;
    },
  };
}

/**
 * Shows world `worldId` (and agent `agentId` when given).
 * @returns a cleanup function that stops the stream and auto-play
 */
export async function openWorldView(main, { worldId, agentId, navigate, service }) {
  replace(main, loading(`Opening world "${worldId}"…`));
  const state = new WorldState(worldId);
  try {
    await state.load();
  } catch (err) {
    replace(
      main,
      errorState(err, h("button", { onClick: () => navigate({}) }, "Back to worlds")),
    );
    return () => {};
  }
  document.title = `${state.world.name} · Simulacra playground`;

  // Toolbar: clock, Tick, Play/Pause and speed.
  const clock = h("p", { class: "clock", id: "clock", "aria-live": "off" });
  const streamStatus = h("span", { class: "stream", role: "status" });
  const tickButton = h("button", { class: "primary", id: "tick" }, "Tick");
  const playButton = h("button", { id: "play", "aria-pressed": "false" }, "Play");
  const speed = h(
    "select",
    { id: "speed", "aria-label": "Play speed" },
    SPEEDS.map((s, i) => h("option", { value: String(i) }, s.label)),
  );
  const tickResult = h("div", { class: "tick-result", "aria-live": "polite" });
  const toolbar = h(
    "section",
    { class: "toolbar", "aria-label": "Clock" },
    h(
      "div",
      { class: "world-title" },
      h("button", { class: "link", onClick: () => navigate({}) }, "← Worlds"),
      h("h2", null, state.world.name),
    ),
    clock,
    h("div", { class: "row" }, tickButton, playButton, speed),
    streamStatus,
    tickResult,
  );

  const board = townBoard(state, {
    onAgent: (id) => showAgent(id, { reveal: true }),
    onObject: (p) => editObject(p),
  });
  const tabs = sideTabs((id) => {
    if (id === "usage") usage.refresh();
  });
  const agent = agentPanel(tabs.panels.get("agent"), state, {
    onClose: () => {
      navigate({ world: worldId }, { replaceOnly: true });
      tabs.select("timeline");
    },
  });
  timeline(tabs.panels.get("timeline"), state, { onAgent: (id) => showAgent(id) });
  scenesPanel(tabs.panels.get("scenes"), state);
  const usage = usagePanel(tabs.panels.get("usage"), state, service);
  const edits = worldEdits(tabs.panels.get("edit"), state, {
    onImported: (id) => showAgent(id),
  });

  // On a phone the panel sits below the board: a way back up to the agent's token.
  const backToBoard = h("button", {
    class: "small link back-to-board",
    onClick: () => {
      const token = board.tokenOf(agentShown);
      (token ?? board.element).scrollIntoView({ block: "center" });
      token?.querySelector("button")?.focus({ preventScroll: true });
    },
  }, "↑ Back to the town");
  const side = h(
    "aside",
    { class: "side", "aria-label": "Details" },
    backToBoard,
    tabs.list,
    [...tabs.panels.values()],
  );
  replace(main, toolbar, h("div", { class: "world-grid" }, board.element, side));

  function renderClock() {
    const c = state.world.clock;
    replace(
      clock,
      h("span", { class: "clock-time", id: "clock-time" }, clockLabel(c.now)),
      h(
        "span",
        { class: "muted" },
        ` · ${c.minutesPerTick} game min per tick`,
        c.mode === "cron"
          ? " · also every real minute (cron)"
          : c.mode === "manual"
          ? " · manual clock"
          : "",
      ),
      c.paused ? h("span", { class: "badge neutral" }, "paused") : null,
    );
  }
  function renderStream() {
    const { state: s, message } = state.stream;
    const text = s === "live"
      ? "● Live"
      : s === "connecting"
      ? "Connecting to events…"
      : s === "reconnecting"
      ? "Reconnecting to events…"
      : `Events: ${message}`;
    streamStatus.className = `stream ${s}`;
    streamStatus.textContent = text;
  }
  state.on("world", renderClock);
  state.on("stream", renderStream);
  renderClock();
  renderStream();

  let agentShown = null;
  /** Opens an agent's panel; a tap on a token also brings the panel into view on a phone. */
  function showAgent(id, { reveal = false } = {}) {
    agentShown = id;
    navigate({ world: worldId, agent: id }, { replaceOnly: true });
    tabs.select("agent");
    agent.show(id);
    if (reveal && narrow.matches) side.scrollIntoView({ block: "start" });
  }
  function editObject(path) {
    tabs.select("edit");
    edits.pickObject(path);
  }

  // Tick once; Play repeats it at the chosen speed until Pause (or an error).
  async function tickOnce() {
    const result = await api("POST", worldPath(worldId, "/tick"), { body: {} });
    state.setClock(result.clock);
    const failed = result.steps.filter((s) => s.error);
    replace(
      tickResult,
      h(
        "span",
        { class: "muted" },
        `Ticked ${result.minutes} min to ${
          result.clock.now.slice(11, 16)
        }: ${result.steps.length} agents stepped`,
      ),
      failed.length
        ? h("span", { class: "badge bad" }, `${failed.length} failed: ${failed[0].error}`)
        : null,
    );
    if (tabs.current === "usage") usage.refresh();
    return result;
  }
  let playing = false;
  let wake = null;
  tickButton.addEventListener("click", async () => {
    try {
      await busy(tickButton, tickOnce, "Ticking…");
    } catch (err) {
      replace(tickResult, errorState(err));
    }
  });
  // Pause lets the tick in flight finish: the button says so until it has.
  function showPlaying(on) {
    playButton.textContent = on ? "Pause" : "Play";
    playButton.setAttribute("aria-pressed", String(on));
    playButton.disabled = false;
    tickButton.disabled = on;
  }
  function stopPlaying() {
    if (!playing) return;
    playing = false;
    playButton.textContent = "Pausing…";
    playButton.disabled = true;
    wake?.();
  }
  playButton.addEventListener("click", async () => {
    if (playing) return stopPlaying();
    playing = true;
    showPlaying(true);
    while (playing) {
      try {
        await tickOnce();
      } catch (err) {
        replace(tickResult, errorState(err));
        break;
      }
      if (!playing) break;
      const ms = SPEEDS[Number(speed.value)].ms;
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, ms);
      });
    }
    playing = false;
    showPlaying(false);
  });

  state.follow();
  // An unknown agent id in the link shows the API's own agent_not_found message in the panel.
  if (agentId) showAgent(agentId);
  else tabs.select("timeline");
  return () => {
    stopPlaying();
    state.close();
    agent.close();
  };
}
