/** @module The agent panel's memory stream, filtered by kind and upkeep, a page at a time. */
import { agentPath, api } from "./api.js";
import { busy, empty, errorState, h, loading, replace } from "./dom.js";
import { memoryItem } from "./memory_views.js";

const KINDS = ["observation", "reflection", "chat", "plan", "seed"];
const PAGE = 30;

/**
 * The memory stream of `agentId` in `box`: kind and upkeep filters, pages of memories with their
 * reflection trees, and a Load more button.
 */
export function memoryStream(state, box, { agentId, signal }) {
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
            which ? `No ${which} memories${page.next ? " on this page" : ""}.` : "No memories yet.",
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
