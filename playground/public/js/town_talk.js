/**
 * @module Talk on the town board: when the event stream brings a conversation, its lines play
 * as speech bubbles over the speakers' tokens, the talkers get a ring, and a conversation of
 * more than two people marks its room with a group badge. Only live events play: the history
 * loaded when the world opens stays in the timeline.
 */
import { h } from "./dom.js";

/** How long one line stays up, in ms. */
const LINE_MS = 2600;
/** Most lines a conversation plays on the board (the timeline holds them all). */
const MAX_LINES = 6;
/** Longest line shown in a bubble, in characters. */
const MAX_CHARS = 140;

function clip(text) {
  const t = String(text ?? "").trim();
  return t.length > MAX_CHARS ? `${t.slice(0, MAX_CHARS - 1)}…` : t;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Shows `text` over a token until the returned function is called. */
function bubble(slot, text) {
  slot.querySelector(":scope > .bubble")?.remove();
  const b = h("span", { class: "bubble" }, text);
  slot.append(b);
  slot.classList.add("speaking");
  return () => {
    b.remove();
    if (!slot.querySelector(":scope > .bubble")) slot.classList.remove("speaking");
  };
}

/** The group badge of a conversation of three or more, in the room of its first talker. */
function groupBadge(slots, count) {
  const room = slots[0]?.closest(".sub-area");
  if (!room) return () => {};
  const badge = h(
    "span",
    { class: "group-talk", "aria-label": `Group conversation of ${count}` },
    `👥 ${count} talking`,
  );
  room.querySelector("h4")?.after(badge);
  room.classList.add("group-talking");
  return () => {
    badge.remove();
    if (!room.querySelector(".group-talk")) room.classList.remove("group-talking");
  };
}

/** Plays one conversation event on the board. */
async function play(state, event, tokenOf) {
  const participants = event.participants ?? [event.agentId];
  const slots = participants.map(tokenOf).filter(Boolean);
  if (slots.length === 0) return;
  for (const s of slots) s.classList.add("talking");
  const ungroup = participants.length > 2 ? groupBadge(slots, participants.length) : () => {};
  try {
    let lines = [];
    try {
      lines = (await state.conversation(event.conversationId)).lines ?? [];
    } catch {
      // The lines could not be read: the topic still says what they talked about.
    }
    if (lines.length === 0) {
      const done = bubble(slots[0], event.topic ? `(talking about ${event.topic})` : "…");
      await sleep(LINE_MS);
      done();
    }
    for (const line of lines.slice(0, MAX_LINES)) {
      const slot = tokenOf(line.speaker);
      if (!slot) continue;
      const done = bubble(slot, clip(line.text));
      await sleep(LINE_MS);
      done();
    }
  } finally {
    ungroup();
    for (const s of slots) s.classList.remove("talking");
  }
}

/** Follows the world's events and plays each new conversation. */
export function talkOnBoard(state, { tokenOf }) {
  let seen = state.events.at(-1)?.seq ?? 0;
  state.on("events", () => {
    const fresh = [];
    for (let i = state.events.length - 1; i >= 0 && state.events[i].seq > seen; i--) {
      fresh.unshift(state.events[i]);
    }
    if (fresh.length === 0) return;
    seen = fresh.at(-1).seq;
    for (const e of fresh) {
      if (e.type === "conversation" && e.seq > state.liveFrom) play(state, e, tokenOf);
    }
  });
}
