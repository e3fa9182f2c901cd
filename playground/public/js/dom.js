/** @module Tiny DOM helpers: element building and the loading, empty and error states. */

/**
 * Builds an element. Props starting with `on` add listeners; `value`, `checked` and `disabled`
 * are set as properties; everything else becomes an attribute. Children may be strings,
 * nodes, arrays or null.
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "value" || name === "checked" || name === "disabled") {
      el[name] = value;
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

/** Appends children (strings, nodes, nested arrays; null skipped). */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** A "Loading…" line for screen readers and eyes. */
export function loading(text = "Loading…") {
  return h("p", { class: "state loading", role: "status" }, text);
}

/** An empty state: what is missing and, when given, what to do. */
export function empty(text, ...actions) {
  return h("div", { class: "state empty" }, h("p", null, text), actions);
}

/** A failed request, showing the API's own message and code. */
export function errorState(err, ...actions) {
  const code = err?.code && err.code !== "http_error" ? err.code : null;
  return h(
    "div",
    { class: "state error", role: "alert" },
    h("p", null, err?.message ?? String(err)),
    code ? h("p", { class: "code" }, code) : null,
    actions,
  );
}

/** "07:10" from a game time. */
export function clockTime(at) {
  return at ? at.slice(11, 16) : "";
}

/** "Mon 13 Feb 2023, 07:10" from a game time (read as a calendar time, no zone). */
export function clockLabel(at) {
  if (!at) return "";
  const [y, m, d] = at.slice(0, 10).split("-").map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  const weekday = day.toLocaleDateString("en-GB", { weekday: "short", timeZone: "UTC" });
  const date = day.toLocaleDateString("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });
  return `${weekday} ${date}, ${clockTime(at)}`;
}

/** A number with thousands separators. */
export function count(n) {
  return Number(n ?? 0).toLocaleString("en-GB");
}

/** Runs `work` while a button shows it is busy; the button comes back enabled. */
export async function busy(button, work, text = "Working…") {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = text;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = label;
  }
}

let uid = 0;
/** A fresh id for label/aria wiring. */
export function nextId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}
