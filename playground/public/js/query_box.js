/** @module The agent panel's retrieval box. */
import { agentPath, api } from "./api.js";
import { busy, empty, errorState, h, nextId, replace } from "./dom.js";
import { retrievedItem } from "./memory_views.js";

/** The retrieval box: a query, how many results, and why each memory was recalled. */
export function queryBox(state, agent) {
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
