/**
 * @module The agent panel's Reflect section: ask the open agent to reflect now (the reflect
 * route), then show the questions it asked itself and the reflections it stored, each opening
 * into the memories it rests on.
 */
import { agentPath, api } from "./api.js";
import { busy, empty, errorState, h, nextId, replace } from "./dom.js";
import { memoryItem } from "./memory_views.js";

/**
 * The section's body for `agent`; `onReflected(result)` runs after reflections were stored (the
 * panel reloads its memory stream).
 */
export function reflectSection(state, agent, { onReflected }) {
  const dueId = nextId("reflect-due");
  const onlyWhenDue = h("input", { type: "checkbox", id: dueId });
  const button = h("button", { class: "primary" }, "Reflect");
  const out = h("div", { "aria-live": "polite" });
  button.addEventListener("click", async () => {
    try {
      const result = await busy(
        button,
        () =>
          api("POST", agentPath(state.id, agent.id, "/reflect"), {
            body: { force: !onlyWhenDue.checked },
          }),
        "Reflecting…",
      );
      showResult(result);
      if (result.reflections.length) onReflected(result);
    } catch (err) {
      replace(out, errorState(err));
    }
  });

  function showResult(result) {
    if (!result.reflections.length) {
      replace(
        out,
        empty(
          "Not due: too little has happened since the last reflection (untick “only when due” to reflect anyway).",
        ),
      );
      return;
    }
    const calls = result.usage?.calls;
    replace(
      out,
      h(
        "p",
        { class: "ok" },
        `${result.reflections.length} new reflection${
          result.reflections.length === 1 ? "" : "s"
        } from ${result.questions.length} question${result.questions.length === 1 ? "" : "s"}${
          calls ? ` (${calls} model call${calls === 1 ? "" : "s"})` : ""
        }.`,
      ),
      h("h4", null, "Questions it asked itself"),
      h("ol", { class: "reflect-questions" }, result.questions.map((q) => h("li", null, q))),
      h("h4", null, "What it concluded"),
      h(
        "ul",
        { class: "memories reflect-result" },
        result.reflections.map((m) => memoryItem(state.id, agent.id, m)),
      ),
    );
  }

  return [
    h(
      "p",
      { class: "muted" },
      "The agent asks itself questions about its recent memories and stores what it concludes as reflections that cite their evidence. It reflects by itself during ticks once enough important things have happened.",
    ),
    h(
      "div",
      { class: "row" },
      button,
      h("label", { class: "field inline", for: dueId }, onlyWhenDue, "only when due"),
    ),
    out,
  ];
}
