/** @module Today's plan as a list: items, their decomposition and the current action. */
import { clockTime, h } from "./dom.js";
import { goalBadge } from "./game_hooks.js";

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

/** Today's plan: each item, the current one marked, with its hour chunks and their actions. */
export function planView(plan, now) {
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
