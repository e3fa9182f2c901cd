/**
 * @module The agent panel's "Feelings" section (issue 22): the mood now and everyone the agent has
 * met, with trust, affinity and closeness, each with the memories that explain it (loaded when
 * opened). No model call: both come from what the memory stream already holds.
 */
import { agentPath, api } from "./api.js";
import { busy, clockTime, empty, errorState, h, replace } from "./dom.js";

/** A -1..1 (or 0..1) number as a signed short figure. */
function figure(x) {
  const s = x.toFixed(2);
  return x > 0 ? `+${s}` : s;
}

/** A labelled meter for screen readers and eyes. */
function meter(label, value, { min = -1, max = 1 } = {}) {
  return h(
    "span",
    { class: "bond-meter" },
    h("span", { class: "muted" }, `${label} `),
    h("meter", { min, max, value, "aria-label": `${label} ${figure(value)}` }),
    ` ${figure(value)}`,
  );
}

/** A button that shows the texts of the memories `ids` under it when pressed. */
function evidenceButton(worldId, agentId, ids) {
  const box = h("ul", { class: "evidence" });
  if (ids.length === 0) return null;
  const button = h("button", { class: "small", "aria-expanded": "false" }, `Why (${ids.length})`);
  let open = false;
  button.addEventListener("click", async () => {
    open = !open;
    button.setAttribute("aria-expanded", String(open));
    if (!open) return replace(box);
    try {
      const memories = await busy(
        button,
        () =>
          Promise.all(
            ids.map((id) =>
              api("GET", agentPath(worldId, agentId, `/memories/${encodeURIComponent(id)}`))
            ),
          ),
        "Loading…",
      );
      replace(box, memories.map((m) => h("li", null, m.description)));
    } catch (err) {
      replace(box, errorState(err));
    }
  });
  return h("div", null, button, box);
}

function moodView(worldId, agent) {
  const mood = agent.mood;
  if (!mood) return empty("No mood yet.");
  return h(
    "div",
    { class: "mood" },
    h(
      "p",
      null,
      h("strong", null, mood.label),
      h("span", { class: "muted" }, ` since ${clockTime(mood.since)}`),
    ),
    h("p", null, meter("valence", mood.valence), " ", meter("arousal", mood.arousal, { min: 0 })),
    evidenceButton(worldId, agent.id, mood.evidence),
  );
}

function relationshipItem(worldId, agentId, r) {
  return h(
    "li",
    { class: "relationship" },
    h(
      "p",
      null,
      h("strong", null, r.name),
      h("span", { class: "muted" }, ` · ${r.kind} · met ${r.familiarity}×`),
    ),
    h(
      "p",
      null,
      meter("trust", r.trust),
      " ",
      meter("affinity", r.affinity),
      " ",
      meter("closeness", r.closeness, { min: 0 }),
    ),
    h("p", { class: "muted" }, r.summary),
    evidenceButton(worldId, agentId, r.evidence),
  );
}

/** The section's body: the mood at once, the relationships once loaded. */
export function bondsSection(state, agent, signal) {
  const list = h("div", null, h("p", { class: "state loading", role: "status" }, "Loading…"));
  api("GET", agentPath(state.id, agent.id, "/relationships"), { signal }).then(
    ({ relationships }) => {
      if (relationships.length === 0) {
        return replace(list, empty("Has met no one yet: talking and being told things does it."));
      }
      replace(
        list,
        h(
          "ul",
          { class: "relationships" },
          relationships.map((r) => relationshipItem(state.id, agent.id, r)),
        ),
      );
    },
    (err) => {
      if (!signal.aborted) replace(list, errorState(err));
    },
  );
  return h(
    "div",
    null,
    h("h4", null, "Mood"),
    moodView(state.id, agent),
    h("h4", null, "Relationships"),
    list,
  );
}
