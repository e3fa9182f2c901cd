/**
 * @module Edit world's object picker: the world's objects grouped by area (a town has some 250),
 * with a search box that narrows the list as you type.
 */
import { h, nextId, replace } from "./dom.js";

/** The objects of an environment by area: `[{ area, objects: [{ path, label }] }]`. */
export function objectGroups(env) {
  return (env?.areas ?? []).map((a) => ({
    area: a.name,
    objects: a.subAreas.flatMap((s) =>
      s.objects.map((o) => ({
        path: `${a.name}:${s.name}:${o.name}`,
        label: `${s.name} › ${o.name}`,
      }))
    ),
  })).filter((g) => g.objects.length > 0);
}

/** Whether every word of `query` is in the object's area, sub-area or name. */
function matches(path, query) {
  const text = path.replaceAll(":", " ").toLowerCase();
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((word) => text.includes(word));
}

/**
 * The picker; `onChange()` runs when the chosen object changes (by the list, the search or
 * `pick`). Returns `{ element, select, fill(env), pick(path) }`.
 */
export function objectPicker({ onChange }) {
  const search = h("input", {
    type: "search",
    autocomplete: "off",
    placeholder: "e.g. bed, cafe piano",
    id: nextId("object-search"),
  });
  const select = h("select", { id: nextId("object"), required: true, size: 8 });
  const summary = h("p", { class: "muted", "aria-live": "polite" });
  let groups = [];

  function render() {
    const query = search.value.trim();
    const before = select.value;
    const shown = groups
      .map((g) => ({ ...g, objects: g.objects.filter((o) => !query || matches(o.path, query)) }))
      .filter((g) => g.objects.length > 0);
    replace(
      select,
      shown.map((g) =>
        h(
          "optgroup",
          { label: g.area },
          g.objects.map((o) => h("option", { value: o.path, title: o.path }, o.label)),
        )
      ),
    );
    const total = groups.reduce((n, g) => n + g.objects.length, 0);
    const found = shown.reduce((n, g) => n + g.objects.length, 0);
    summary.textContent = query
      ? `${found} of ${total} objects match “${query}”`
      : `${total} objects in ${groups.length} areas`;
    const paths = shown.flatMap((g) => g.objects.map((o) => o.path));
    select.value = paths.includes(before) ? before : (paths[0] ?? "");
    select.disabled = paths.length === 0;
    if (select.value !== before) onChange();
  }

  search.addEventListener("input", render);
  // Enter in the search box picks the first match rather than submitting the form.
  search.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      select.focus();
    }
  });
  select.addEventListener("change", onChange);

  const element = h(
    "div",
    { class: "object-picker" },
    h("div", { class: "field" }, h("label", { for: search.id }, "Find an object"), search),
    h("div", { class: "field" }, h("label", { for: select.id }, "Object"), select, summary),
  );
  return {
    element,
    select,
    /** Shows the objects of `env`, keeping the choice when it still exists. */
    fill(env) {
      groups = objectGroups(env);
      render();
    },
    /** Chooses `path` (an object clicked on the board), clearing a search that hides it. */
    pick(path) {
      if (![...select.options].some((o) => o.value === path)) {
        search.value = "";
        render();
      }
      select.value = path;
      onChange();
    },
  };
}
