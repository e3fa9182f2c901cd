/**
 * @module Usage: model calls and tokens of the world so far, per operation and per agent, with
 * the prompt tokens the provider served from its prompt cache (a prefix repeated from an
 * earlier call: cheaper on OpenAI, no prefill on vLLM or llama.cpp).
 */
import { api, worldPath } from "./api.js";
import { count, errorState, h, loading, replace } from "./dom.js";

function table(caption, rows, nameOf) {
  return h(
    "table",
    { class: "usage" },
    h("caption", null, caption),
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["", "Calls", "Prompt tokens", "Cached prompt tokens", "Completion tokens"].map((t) =>
          h("th", { scope: "col" }, t)
        ),
      ),
    ),
    h(
      "tbody",
      null,
      rows.map(([key, u]) =>
        h(
          "tr",
          null,
          h("th", { scope: "row" }, nameOf(key)),
          h("td", null, count(u.calls)),
          h("td", null, count(u.promptTokens)),
          h("td", { class: "cached" }, cachedText(u)),
          h("td", null, count(u.completionTokens)),
        )
      ),
    ),
  );
}

/** Cached prompt tokens and their share of the prompt tokens, e.g. "1,024 (52%)". */
function cachedText(u) {
  const cached = u.cachedPromptTokens ?? 0;
  if (cached === 0 || !u.promptTokens) return count(cached);
  return `${count(cached)} (${Math.round((100 * cached) / u.promptTokens)}%)`;
}

/** The Usage tab; `refresh()` reads the totals again. */
export function usagePanel(panel, state, service) {
  const body = h("div");
  const offline = service.health?.model.mode === "offline";
  replace(
    panel,
    h("h2", null, "Usage"),
    offline
      ? h(
        "p",
        { class: "badge offline block", id: "usage-offline" },
        "Offline stand-in model: no language model was called. Calls and tokens are what the same work would send to a real model (tokens estimated).",
      )
      : h(
        "p",
        { class: "muted" },
        `Model ${service.health?.model.main ?? ""} · fast ${service.health?.model.fast ?? ""}`,
      ),
    body,
  );
  let running = false;
  async function refresh() {
    if (running) return;
    running = true;
    if (!body.hasChildNodes()) replace(body, loading("Loading usage…"));
    try {
      const usage = await api("GET", worldPath(state.id, "/usage"));
      const ops = Object.entries(usage.byOperation ?? {}).sort((a, b) => b[1].calls - a[1].calls);
      const agents = Object.entries(usage.byAgent ?? {}).sort((a, b) => b[1].calls - a[1].calls);
      replace(
        body,
        h(
          "p",
          { class: "totals" },
          h("strong", null, count(usage.total.calls)),
          " model calls · ",
          h("strong", null, count(usage.total.promptTokens)),
          " prompt tokens (",
          h("strong", { id: "usage-cached" }, cachedText(usage.total)),
          " cached) · ",
          h("strong", null, count(usage.total.completionTokens)),
          " completion tokens",
        ),
        ops.length
          ? table("Per operation", ops, (k) => k)
          : h("p", { class: "muted" }, "No model calls yet."),
        agents.length ? table("Per agent", agents, (k) => state.agents.get(k)?.name ?? k) : null,
      );
    } catch (err) {
      replace(body, errorState(err));
    } finally {
      running = false;
    }
  }
  return { refresh };
}
