/**
 * @module How memories look: provenance badges, importance, upkeep (merge count, superseded,
 * archived, merged), reflection trees with their evidence, and retrieval results with the score
 * broken into recency, importance and relevance bars.
 */
import { agentPath, api } from "./api.js";
import { busy, clockTime, errorState, h, replace } from "./dom.js";

/** The badge of where a memory came from. */
export function provenanceBadge(provenance) {
  if (provenance.startsWith("overheard:")) {
    const who = provenance.slice("overheard:".length);
    return h("span", {
      class: "badge prov overheard",
      title: `Overheard from ${who} talking with others: less sure than being told`,
    }, `overheard ${who}`);
  }
  const told = provenance.startsWith("told_by:");
  return h(
    "span",
    {
      class: `badge prov ${told ? "told_by" : provenance}`,
      title: told ? `Told by ${provenance.slice(8)}, not witnessed` : `Provenance: ${provenance}`,
    },
    told ? `told by ${provenance.slice(8)}` : provenance.replace("_", " "),
  );
}

/** The importance of a memory, 1–10. */
export function importanceBadge(importance, pending) {
  return h(
    "span",
    {
      class: "importance-badge",
      title: pending ? "Provisional: the importance model was down" : "Importance (1–10)",
      "aria-label": `importance ${importance} of 10${pending ? ", provisional" : ""}`,
    },
    `★ ${importance}${pending ? "?" : ""}`,
  );
}

/**
 * The badges of memory upkeep: how many near-identical memories a consolidated one stands for,
 * and whether it was superseded by a newer fact, archived under the budget or merged into
 * another (README "Memory upkeep").
 */
export function upkeepBadges(m) {
  const span = (kind, title, text) => h("span", { class: `badge upkeep ${kind}`, title }, text);
  return [
    m.count > 1
      ? span(
        "count",
        `Stands for ${m.count} near-identical memories${
          m.firstAt ? `, ${m.firstAt.replace("T", " ")} – ${m.lastAt.replace("T", " ")}` : ""
        }`,
        `×${m.count}`,
      )
      : null,
    m.supersededBy
      ? span(
        "superseded",
        `Superseded at ${
          m.invalidAt?.replace("T", " ")
        } by memory ${m.supersededBy}: a newer memory changed this fact`,
        "superseded",
      )
      : null,
    m.archivedAt
      ? span(
        "archived",
        `Archived at ${m.archivedAt.replace("T", " ")}: out of the live set (memory budget), kept`,
        "archived",
      )
      : null,
    m.mergedInto
      ? span(
        "merged",
        `Merged into memory ${m.mergedInto} by consolidation, kept`,
        "merged",
      )
      : null,
  ];
}

/** The classes a memory's item gets: its kind, and its upkeep state. */
function upkeepClasses(m) {
  return [
    m.supersededBy ? "superseded" : "",
    m.archivedAt ? "archived" : "",
    m.mergedInto ? "merged" : "",
  ].filter(Boolean).join(" ");
}

function memoryMeta(m) {
  return h(
    "div",
    { class: "memory-meta" },
    m.kind === m.provenance ? null : h("span", { class: `badge kind ${m.kind}` }, m.kind),
    provenanceBadge(m.provenance),
    importanceBadge(m.importance, m.importancePending),
    ...upkeepBadges(m),
    h(
      "time",
      { datetime: m.createdAt, title: `Created ${m.createdAt}` },
      `${m.createdAt.slice(5, 10)} ${clockTime(m.createdAt)}`,
    ),
    m.depth ? h("span", { class: "muted" }, `depth ${m.depth}`) : null,
  );
}

/**
 * A reflection's evidence as a tree: each node lists the memories it cites; a cited reflection
 * opens into its own evidence. Built from one GET of the reflection (its evidence chain).
 */
function evidenceTree(root, byId) {
  const seen = new Set([root.id]);
  function node(id) {
    const m = byId.get(id);
    if (!m) return h("li", { class: "muted" }, `memory ${id} (not found)`);
    const children = m.evidence?.filter((e) => !seen.has(e)) ?? [];
    children.forEach((e) => seen.add(e));
    return h(
      "li",
      { "data-memory": m.id },
      h("p", null, m.description),
      memoryMeta(m),
      children.length ? h("ul", { class: "tree" }, children.map(node)) : null,
    );
  }
  const first = (root.evidence ?? []).filter((e) => !seen.has(e));
  first.forEach((e) => seen.add(e));
  return h("ul", { class: "tree" }, first.map(node));
}

/** One memory in the stream; reflections get an "Evidence" button that opens their tree. */
export function memoryItem(worldId, agentId, m) {
  const evidenceBox = h("div", { class: "evidence" });
  let button = null;
  if (m.evidence?.length) {
    button = h(
      "button",
      { class: "small", "aria-expanded": "false" },
      `Evidence (${m.evidence.length})`,
    );
    let open = false;
    button.addEventListener("click", async () => {
      open = !open;
      button.setAttribute("aria-expanded", String(open));
      if (!open) return replace(evidenceBox);
      try {
        const full = await busy(
          button,
          () => api("GET", agentPath(worldId, agentId, `/memories/${encodeURIComponent(m.id)}`)),
          "Loading…",
        );
        const byId = new Map((full.evidenceChain ?? []).map((e) => [e.id, e]));
        replace(evidenceBox, h("p", { class: "muted" }, "Based on:"), evidenceTree(full, byId));
      } catch (err) {
        replace(evidenceBox, errorState(err));
      }
    });
  }
  return h(
    "li",
    { class: `memory ${m.kind} ${upkeepClasses(m)}`.trim(), "data-memory": m.id },
    h("p", null, m.description),
    h("div", { class: "row" }, memoryMeta(m), button),
    evidenceBox,
  );
}

function bar(label, value, weight) {
  const fill = h("span", { class: "bar-fill" });
  // Through the CSSOM: the page's CSP allows no inline style attributes.
  fill.style.width = `${Math.round(Math.max(0, Math.min(1, value)) * 100)}%`;
  return h(
    "div",
    { class: `bar ${label}` },
    h("span", { class: "bar-label" }, label),
    h(
      "span",
      {
        class: "bar-track",
        role: "meter",
        "aria-label": label,
        "aria-valuemin": "0",
        "aria-valuemax": "1",
        "aria-valuenow": value.toFixed(2),
      },
      fill,
    ),
    h("span", { class: "bar-value" }, `${value.toFixed(2)}${weight !== 1 ? ` × ${weight}` : ""}`),
  );
}

/** One retrieval result: its score and the three components as bars, raw values in a title. */
export function retrievedItem(m, weights) {
  return h(
    "li",
    { class: `retrieved ${upkeepClasses(m)}`.trim(), "data-memory": m.id },
    h(
      "div",
      { class: "row spread" },
      h("p", null, m.description),
      h("span", { class: "score", title: "score = Σ weight × component" }, m.score.toFixed(3)),
    ),
    h(
      "div",
      {
        class: "bars",
        title: `raw: ${
          m.raw.hoursSinceAccess.toFixed(1)
        } game hours since last access · importance ${m.raw.importance} · cosine ${
          m.raw.cosine.toFixed(3)
        }`,
      },
      bar("recency", m.components.recency, weights.recency),
      bar("importance", m.components.importance, weights.importance),
      bar("relevance", m.components.relevance, weights.relevance),
    ),
    memoryMeta(m),
  );
}
