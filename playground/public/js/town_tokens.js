/**
 * @module Agent tokens on the town board: one element per agent, kept for the life of the view,
 * updated in place and moved between rooms with a short glide (FLIP: measure, move, animate the
 * difference), so a tick shows people walking rather than boxes redrawn.
 */
import { h } from "./dom.js";
import { doingOf, hueOf, initials, shortName } from "./town_layout.js";

/** How long a move glides, in ms. */
export const MOVE_MS = 700;

const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/** A new token for an agent (an `li` holding the button; bubbles attach to the `li`). */
export function makeToken(agent, onAgent) {
  const avatar = h("span", { class: "avatar", "aria-hidden": "true" });
  const tip = h("span", { class: "tip", "aria-hidden": "true" });
  const button = h(
    "button",
    {
      class: "agent-chip token",
      "data-agent": agent.id,
      "data-kind": agent.kind ?? "agent",
      onClick: () => onAgent(agent.id),
    },
    avatar,
    h("span", { class: "token-name", "aria-hidden": "true" }, shortName(agent.name)),
    tip,
  );
  button.style.setProperty("--hue", String(hueOf(agent.id)));
  const slot = h("li", { class: "token-slot", "data-slot": agent.id }, button);
  updateToken(slot, agent);
  return slot;
}

/** Brings a token up to date with its agent (emoji, action); touches the DOM only on change. */
export function updateToken(slot, agent) {
  const doing = doingOf(agent);
  const label = `${agent.name}: ${doing}`;
  const button = slot.firstElementChild;
  if (button.getAttribute("aria-label") === label && slot.dataset.emoji === (agent.emoji ?? "")) {
    return;
  }
  slot.dataset.emoji = agent.emoji ?? "";
  button.setAttribute("aria-label", label);
  button.querySelector(".avatar").textContent = agent.emoji || initials(agent.name);
  button.querySelector(".tip").textContent = `${agent.emoji ? `${agent.emoji} ` : ""}${label}`;
}

/**
 * Where the tokens about to move stand now: read before anything on the board changes.
 * @param {{slot: HTMLElement, to: HTMLElement}[]} moves
 */
export function standing(moves) {
  return moves.map(({ slot }) => (slot.isConnected ? slot.getBoundingClientRect() : null));
}

/**
 * Moves tokens to their new rooms and glides each from where it stood (`firsts`, from
 * {@link standing}): reads, then writes, then the animations, so 25 moves cost two layouts.
 * @param {{slot: HTMLElement, to: HTMLElement}[]} moves
 * @param {(DOMRect | null)[]} firsts
 */
export function moveTokens(moves, firsts) {
  for (const { slot, to } of moves) to.append(slot);
  if (reducedMotion.matches) return;
  const lasts = moves.map(({ slot }) => slot.getBoundingClientRect());
  moves.forEach(({ slot }, i) => {
    const first = firsts[i];
    if (!first) return;
    const dx = first.left - lasts[i].left;
    const dy = first.top - lasts[i].top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
    slot.classList.add("moving");
    const glide = slot.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
      { duration: MOVE_MS, easing: "ease-in-out" },
    );
    glide.onfinish = glide.oncancel = () => slot.classList.remove("moving");
  });
}
