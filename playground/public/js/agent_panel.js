/**
 * @module The agent panel: summary, persona, today's plan (current action highlighted, with its
 * decomposition), a retrieval box that shows why memories are recalled, talk, and the memory
 * stream with kind filters and reflection trees.
 */
import { agentPath, api } from "./api.js";
import { busy, clockTime, empty, errorState, h, loading, replace } from "./dom.js";
import { memoryStream } from "./memory_stream.js";
import { planView } from "./plan_view.js";
import { queryBox } from "./query_box.js";
import { talkSection } from "./talk.js";
import { reflectSection } from "./reflect_section.js";
import { bondsSection } from "./bonds_view.js";
import { goalsBox } from "./game_hooks.js";

function section(id, title, ...body) {
  return h(
    "section",
    { class: "agent-section", "aria-labelledby": id },
    h("h3", { id }, title),
    body,
  );
}

function personaView(persona) {
  return [
    persona.global_summary ? h("p", null, persona.global_summary) : null,
    h("h4", null, "Core traits"),
    h(
      "ul",
      { class: "traits" },
      persona.core_traits.map((t) =>
        h("li", null, h("strong", null, t.trait), t.desc ? ` — ${t.desc}` : "")
      ),
    ),
    h("h4", null, "Scene facets"),
    h(
      "ul",
      { class: "facets" },
      persona.scene_facets.map((f) =>
        h(
          "li",
          null,
          h("strong", null, f.title),
          h("p", null, f.situation),
          f.behavior_pattern ? h("p", { class: "muted" }, f.behavior_pattern) : null,
          f.cue_phrases.length
            ? h(
              "p",
              { class: "cues" },
              "Cues: ",
              f.cue_phrases.map((c) => h("span", { class: "cue" }, c)),
            )
            : null,
        )
      ),
    ),
  ];
}

/** The agent tab; `show(id)` loads an agent into it. */
export function agentPanel(panel, state, { onClose }) {
  let current = null;
  let planBox = null;
  let stop = new AbortController();
  replace(panel, empty("Pick an agent on the board to see its mind."));

  async function show(agentId) {
    stop.abort();
    stop = new AbortController();
    const signal = stop.signal;
    current = agentId;
    replace(panel, loading("Loading agent…"));
    let agent;
    try {
      agent = await api("GET", agentPath(state.id, agentId), { signal });
    } catch (err) {
      if (signal.aborted) return;
      replace(panel, errorState(err, h("button", { onClick: onClose }, "Close")));
      return;
    }
    if (signal.aborted) return;
    const header = h("header", { class: "agent-header" });
    const plan = h("div");
    planBox = plan;
    const persona = h("div");
    const memories = h("div");
    const query = queryBox(state, agent);
    replace(
      panel,
      header,
      h(
        "nav",
        { class: "jump", "aria-label": "Agent sections" },
        [
          ["summary", "Summary"],
          ["feelings", "Feelings"],
          ["persona", "Persona"],
          ["plan", "Plan"],
          ["query", "Query"],
          ["talk", "Talk"],
          ["reflect", "Reflect"],
          ["memories", "Memories"],
        ]
          .map(([id, label]) => h("a", { href: `#agent-${id}` }, label)),
      ),
      section(
        "agent-summary",
        "Summary",
        agent.summary
          ? h("p", { class: "summary" }, agent.summary)
          : empty("No summary yet: it is made the first time the agent plans or talks."),
        h(
          "details",
          null,
          h("summary", null, "Description"),
          h("p", { class: "muted" }, agent.description),
        ),
      ),
      section("agent-feelings", "Feelings", bondsSection(state, agent, signal)),
      section("agent-persona", "Persona", persona),
      section("agent-plan", "Today's plan", plan, goalsBox(state, agentId)),
      section("agent-query", "Retrieval", query),
      section("agent-talk", "Talk", talkSection(state, agent)),
      section(
        "agent-reflect",
        "Reflect",
        reflectSection(state, agent, {
          onReflected: () => memoryStream(state, memories, { agentId, signal }),
        }),
      ),
      section("agent-memories", "Memory stream", memories),
    );
    renderHeader(header, agentId);
    renderPersona(persona, agent);
    renderPlan(plan, agent.plan);
    memoryStream(state, memories, { agentId, signal });
  }

  function renderHeader(header, agentId) {
    const a = state.agents.get(agentId);
    if (!a) return;
    replace(
      header,
      h("span", { class: "avatar big", "aria-hidden": "true" }, a.emoji ?? "🙂"),
      h(
        "div",
        null,
        h(
          "h2",
          { id: "agent-name" },
          a.name,
          a.age ? h("span", { class: "muted" }, `, ${a.age}`) : null,
        ),
        h("p", { class: "doing" }, a.action ?? "Not placed yet"),
        h(
          "p",
          { class: "muted" },
          a.location ?? "",
          a.traits?.length ? ` · ${a.traits.join(", ")}` : "",
        ),
      ),
      h("button", { class: "small", onClick: onClose, "aria-label": `Close ${a.name}` }, "Close"),
    );
  }

  function renderPersona(box, agent) {
    if (agent.persona) return replace(box, personaView(agent.persona));
    const build = h("button", null, "Build persona");
    build.addEventListener("click", async () => {
      try {
        const built = await busy(
          build,
          () => api("POST", agentPath(state.id, agent.id, "/persona/build"), { body: {} }),
          "Building…",
        );
        replace(box, personaView(built.persona));
      } catch (err) {
        replace(box, errorState(err), build);
      }
    });
    replace(
      box,
      empty(
        "No persona yet. Build one from the agent's description and memories (one main-model call).",
        build,
      ),
    );
  }

  function renderPlan(box, plan) {
    if (!plan) {
      return replace(
        box,
        empty("No plan for today yet: the agent plans its day on its first tick of the day."),
      );
    }
    replace(
      box,
      h("p", { class: "muted" }, `Revision ${plan.revision}, woke at ${clockTime(plan.wakeUp)}`),
      planView(plan, state.world.clock.now),
    );
  }

  /** Reads the agent again (one request: summary, persona, plan) after the clock moved. */
  async function refreshPlan(agentId, signal) {
    try {
      const agent = await api("GET", agentPath(state.id, agentId), { signal });
      if (!signal.aborted && planBox?.isConnected) renderPlan(planBox, agent.plan);
    } catch (err) {
      if (!signal.aborted && planBox?.isConnected) replace(planBox, errorState(err));
    }
  }

  // Follow the shown agent: its header with every action, its plan as the clock moves.
  state.on("agents", () => {
    const header = panel.querySelector(".agent-header");
    if (current && header) renderHeader(header, current);
  });
  state.on("world", () => {
    if (current && planBox?.isConnected) refreshPlan(current, stop.signal);
  });

  return {
    show,
    close() {
      stop.abort();
    },
  };
}
