/**
 * @module One world in the worlds list: open it, see its clock (time, mode, paused), or delete
 * it after an inline confirmation that names what goes with it.
 */
import { api, worldPath } from "./api.js";
import { busy, clockLabel, errorState, h, replace } from "./dom.js";

/** How the world's time moves, in the words of the New world form. */
export function clockModeLabel(mode) {
  if (mode === "cron") return "every real minute (cron)";
  if (mode === "manual") return "manual clock";
  return mode ?? "";
}

/**
 * The list item of world `w`; `open(route)` opens it and `onDeleted(w)` is told once it is gone
 * from the server.
 */
export function worldListItem(w, { open, onDeleted }) {
  const link = h(
    "a",
    {
      href: `/?world=${encodeURIComponent(w.id)}`,
      onClick: (e) => {
        e.preventDefault();
        open({ world: w.id });
      },
    },
    h("strong", null, w.name),
    h("span", { class: "muted" }, ` ${w.id} · ${clockLabel(w.clock.now)}`),
    h(
      "span",
      { class: "badge neutral clock-mode", "data-mode": w.clock.mode },
      clockModeLabel(w.clock.mode),
    ),
    w.clock.paused ? h("span", { class: "badge neutral" }, "paused") : null,
  );
  const actions = h("div", { class: "world-actions" });
  const out = h("div", { "aria-live": "polite" });
  const item = h(
    "li",
    { "data-world": w.id },
    h("div", { class: "world-row" }, link, actions),
    out,
  );

  function idle() {
    replace(
      actions,
      h(
        "button",
        { class: "small", "aria-label": `Delete ${w.name}`, onClick: confirming },
        "Delete",
      ),
    );
  }

  function confirming() {
    const yes = h("button", { class: "small danger" }, "Delete for good");
    const no = h("button", { class: "small", onClick: () => (replace(out), idle()) }, "Cancel");
    yes.addEventListener("click", async () => {
      try {
        await busy(yes, () => api("DELETE", worldPath(w.id)), "Deleting…");
        item.remove();
        onDeleted(w);
      } catch (err) {
        replace(out, errorState(err));
      }
    });
    replace(actions);
    replace(
      out,
      h(
        "div",
        { class: "confirm", role: "group", "aria-label": `Confirm deleting ${w.name}` },
        h(
          "p",
          null,
          `Delete “${w.name}” and everything in it: its agents, their memories, plans and conversations, its events and usage? This cannot be undone.`,
        ),
        h("div", { class: "row" }, yes, no),
      ),
    );
    no.focus();
  }

  idle();
  return item;
}
