/**
 * @module The agent panel: summary, persona, today's plan (current action highlighted, with its
 * decomposition), a retrieval box that shows why memories are recalled, talk, and the memory
 * stream with kind filters and reflection trees.
 */
import { agentPath, api } from "./api.js";
import { busy, clockTime, empty, errorState, h, loading, nextId, replace } from "./dom.js";
import { memoryItem, retrievedItem } from "./memory_views.js";
import { talkSection } from "./talk.js";
import { reflectSection } from "./reflect_section.js";
import { bondsSection } from "./bonds_view.js";
import { goalBadge, goalsBox } from "./game_hooks.js";

const KINDS = ["observation", "reflection", "chat", "plan", "seed"];
const PAGE = 30;

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

function within(span, at) {
  return span.start <= at && at < span.end;
}

function actionList(actions, now) {
  return h(
    "ol",
    { class: "actions" },
    actions.map((a) =>
      h(
        "li",
        {
          class: within(a, now) ? "current" : null,
          "aria-current": within(a, now) ? "true" : null,
        },
        h("span", { class: "time" }, `${clockTime(a.start)}–${clockTime(a.end)}`),
        ` ${a.emoji} ${a.description}`,
        h("span", { class: "muted" }, ` · ${a.location}`),
      )
    ),
  );
}

function planView(plan, now) {
  return h(
    "ol",
    { class: "plan" },
    plan.items.map((item) => {
      const current = within(item, now);
      const chunks = item.chunks ?? [];
      return h(
        "li",
        { class: current ? "current" : null, "aria-current": current ? "true" : null },
        h(
          "div",
          { class: "plan-item" },
          h("span", { class: "time" }, `${clockTime(item.start)}–${clockTime(item.end)}`),
          ` ${item.description}`,
          h("span", { class: "muted" }, ` · ${item.location}`),
          " ",
          goalBadge(item),
        ),
        chunks.length
          ? h(
            "details",
            { open: current },
            h(
              "summary",
              null,
              `Decomposition (${chunks.length} hour chunk${chunks.length === 1 ? "" : "s"})`,
            ),
            h(
              "ol",
              { class: "chunks" },
              chunks.map((c) =>
                h(
                  "li",
                  { class: within(c, now) ? "current" : null },
                  h("span", { class: "time" }, `${clockTime(c.start)}–${clockTime(c.end)}`),
                  ` ${c.description}`,
                  c.actions
                    ? actionList(c.actions, now)
                    : h("span", { class: "muted" }, " (not yet decomposed)"),
                )
              ),
            ),
          )
          : null,
      );
    }),
  );
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
    const query = queryBox(agent);
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
          onReflected: () => memoryStream(memories, agentId, signal),
        }),
      ),
      section("agent-memories", "Memory stream", memories),
    );
    renderHeader(header, agentId);
    renderPersona(persona, agent);
    renderPlan(plan, agent.plan);
    memoryStream(memories, agentId, signal);
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

  function queryBox(agent) {
    const id = nextId("query");
    const input = h("input", {
      id,
      name: "query",
      required: true,
      maxlength: 2000,
      placeholder: "e.g. Who is running for mayor?",
    });
    const k = h(
      "select",
      { "aria-label": "Results" },
      [3, 5, 10, 20].map((n) => h("option", { value: String(n) }, `${n} results`)),
    );
    k.value = "5";
    const button = h("button", { class: "primary", type: "submit" }, "Retrieve");
    const includeArchived = h("input", { type: "checkbox", id: `${id}-archived` });
    const includeSuperseded = h("input", { type: "checkbox", id: `${id}-superseded` });
    const out = h("div", { "aria-live": "polite" });
    const form = h(
      "form",
      { class: "query-form" },
      h(
        "p",
        { class: "muted" },
        "score = recency + importance + relevance, each min–max normalised over the agent's memories (the paper's formula; weights from the world's settings). Retrieving marks the results as accessed, as recall does.",
      ),
      h("div", { class: "field" }, h("label", { for: id }, "Query"), input),
      h(
        "div",
        { class: "row" },
        k,
        h(
          "label",
          { class: "field inline", for: `${id}-archived` },
          includeArchived,
          "include archived",
        ),
        h(
          "label",
          { class: "field inline", for: `${id}-superseded` },
          includeSuperseded,
          "include superseded",
        ),
        button,
      ),
      out,
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const result = await busy(
          button,
          () =>
            api("POST", agentPath(state.id, agent.id, "/retrieve"), {
              body: {
                query: input.value,
                k: Number(k.value),
                includeArchived: includeArchived.checked,
                includeSuperseded: includeSuperseded.checked,
              },
            }),
          "Retrieving…",
        );
        replace(
          out,
          h(
            "p",
            { class: "muted" },
            `${result.memories.length} of ${result.candidates} candidates${
              result.exact ? " (exact scan)" : ""
            } · weights recency ${result.weights.recency}, importance ${result.weights.importance}, relevance ${result.weights.relevance}`,
          ),
          result.memories.length
            ? h(
              "ol",
              { class: "retrieval" },
              result.memories.map((m) => retrievedItem(m, result.weights)),
            )
            : empty("No memories to retrieve yet."),
        );
      } catch (err) {
        replace(out, errorState(err));
      }
    });
    return form;
  }

  function memoryStream(box, agentId, signal) {
    let kind = "";
    // Which memories: the live set, the superseded among them, or those moved out of it.
    let upkeep = "live";
    const list = h("ul", { class: "memories" });
    const more = h("button", { hidden: true }, "Load more");
    const status = h("div", { "aria-live": "polite" });
    let cursor = null;
    const chips = (options, pick) => {
      const buttons = options.map(([value, label, title]) => {
        const b = h("button", {
          class: "chip",
          "aria-pressed": String(value === options[0][0]),
          ...(title ? { title } : {}),
        }, label);
        b.addEventListener("click", () => {
          pick(value);
          for (const other of buttons) other.setAttribute("aria-pressed", String(other === b));
          load(true);
        });
        return b;
      });
      return buttons;
    };
    const filterButtons = chips([["", "All"], ...KINDS.map((k) => [k, k])], (v) => kind = v);
    const upkeepButtons = chips([
      ["live", "Live", "What retrieval, reflection and summaries read"],
      ["superseded", "Superseded", "Live memories a newer one superseded (a fact that changed)"],
      ["archived", "Archived", "Moved out of the live set: archived under the budget, or merged"],
    ], (v) => upkeep = v);
    const refresh = h("button", { class: "small" }, "Refresh");
    refresh.addEventListener("click", () => load(true));
    replace(
      box,
      h(
        "div",
        { class: "row", role: "group", "aria-label": "Memory kinds" },
        filterButtons,
        refresh,
      ),
      h("div", { class: "row", role: "group", "aria-label": "Memory upkeep" }, upkeepButtons),
      status,
      list,
      more,
    );
    async function load(reset) {
      if (reset) {
        cursor = null;
        replace(list);
        replace(status, loading("Loading memories…"));
      }
      const params = new URLSearchParams({ limit: String(PAGE) });
      if (kind) params.set("kind", kind);
      if (upkeep === "archived") params.set("archived", "true");
      if (cursor) params.set("cursor", cursor);
      try {
        const page = await api("GET", agentPath(state.id, agentId, `/memories?${params}`), {
          signal,
        });
        replace(status);
        // Superseded memories are live: the live pages, those with supersededBy.
        const shown = upkeep === "superseded"
          ? page.memories.filter((m) => m.supersededBy)
          : page.memories;
        list.append(...shown.map((m) => memoryItem(state.id, agentId, m)));
        if (!list.hasChildNodes()) {
          const which = [upkeep === "live" ? "" : upkeep, kind].filter(Boolean).join(" ");
          replace(
            status,
            empty(
              which
                ? `No ${which} memories${page.next ? " on this page" : ""}.`
                : "No memories yet.",
            ),
          );
        }
        cursor = page.next;
        more.hidden = !cursor;
      } catch (err) {
        if (!signal.aborted) replace(status, errorState(err));
      }
    }
    more.addEventListener("click", () => busy(more, () => load(false), "Loading…"));
    load(true);
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
