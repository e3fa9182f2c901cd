/**
 * @module The Scenes tab: hold a group conversation (all lines with their speakers, and who
 * overheard it), and play a player: create one, move it, and answer the agents who start a
 * conversation with it (`conversation.started` events) or talk to one yourself.
 */
import { api, worldPath } from "./api.js";
import { busy, errorState, h, replace } from "./dom.js";

/** The lines of a conversation as a transcript list. */
function transcript(lines, nameOf) {
  return h(
    "ol",
    { class: "transcript" },
    lines.map((l) => h("li", null, h("strong", null, l.name ?? nameOf(l.speaker)), ": ", l.text)),
  );
}

/** The sub-areas of the world's environment, as "Area:Sub-area" (none without a tree). */
function places(state) {
  return (state.env?.areas ?? []).flatMap((a) => a.subAreas.map((s) => `${a.name}:${s.name}`));
}

/** Renders the Scenes tab into `panel`. */
export function scenesPanel(panel, state) {
  const nameOf = (id) => state.agents.get(id)?.name ?? id;
  const isPlayer = (a) => a.kind === "player";

  // A group conversation: 2–8 agents, a topic, private or not.
  const picks = h("fieldset", { class: "scene-picks" });
  const topic = h("input", { name: "topic", placeholder: "Topic (optional)", maxlength: "500" });
  const hidden = h("input", { type: "checkbox", name: "private" });
  const groupOut = h("div", { class: "scene-result", "aria-live": "polite" });
  const start = h("button", { class: "primary" }, "Start conversation");
  start.addEventListener("click", () =>
    busy(start, async () => {
      const participants = [...picks.querySelectorAll("input:checked")].map((i) => i.value);
      try {
        const talk = await api("POST", worldPath(state.id, "/conversations"), {
          body: {
            participants,
            ...(topic.value.trim() ? { topic: topic.value.trim() } : {}),
            ...(hidden.checked ? { private: true } : {}),
          },
        });
        replace(
          groupOut,
          transcript(talk.lines, nameOf),
          h(
            "p",
            { class: "muted" },
            talk.open ? "Open: waiting for a player's line. " : `Ended by ${talk.endedBy}. `,
            talk.listeners?.length
              ? `Overheard by ${talk.listeners.map(nameOf).join(", ")}.`
              : "Nobody overheard it.",
          ),
        );
        if (talk.open) waiting(talk.conversationId ?? talk.id, talk.lines);
      } catch (err) {
        replace(groupOut, errorState(err));
      }
    }, "Talking…"));

  // Play a player.
  const you = h("select", { "aria-label": "Your player" });
  const newName = h("input", { placeholder: "New player's name", maxlength: "100" });
  const create = h("button", null, "Create player");
  const where = h("input", { list: "scene-places", placeholder: "Location", maxlength: "300" });
  const placeList = h("datalist", { id: "scene-places" });
  const doing = h("input", { placeholder: "Action, e.g. looking around", maxlength: "500" });
  const move = h("button", null, "Move");
  const talkTo = h("select", { "aria-label": "Talk to" });
  const open = h("button", null, "Talk to them");
  const playOut = h("div", { class: "scene-result", "aria-live": "polite" });
  const inbox = h("div", { class: "scene-inbox", "aria-live": "polite" });

  create.addEventListener("click", () =>
    busy(create, async () => {
      try {
        const agent = await api("POST", worldPath(state.id, "/agents"), {
          body: {
            kind: "player",
            name: newName.value.trim(),
            description: "A player of the playground",
          },
        });
        state.addAgent(agent);
        you.value = agent.id;
        replace(playOut, h("p", null, `You play ${agent.name}.`));
      } catch (err) {
        replace(playOut, errorState(err));
      }
    }, "Creating…"));
  move.addEventListener("click", () =>
    busy(move, async () => {
      try {
        const agent = await api("PATCH", worldPath(state.id, `/agents/${you.value}`), {
          body: {
            ...(where.value.trim() ? { location: where.value.trim() } : {}),
            ...(doing.value.trim() ? { action: doing.value.trim() } : {}),
          },
        });
        state.addAgent({ ...state.agents.get(agent.id), ...agent });
        replace(playOut, h("p", null, `${agent.name} is at ${agent.location}: ${agent.action}.`));
      } catch (err) {
        replace(playOut, errorState(err));
      }
    }, "Moving…"));
  open.addEventListener("click", () =>
    busy(open, async () => {
      try {
        const talk = await api("POST", worldPath(state.id, "/conversations"), {
          body: { participants: [you.value, talkTo.value] },
        });
        waiting(talk.conversationId ?? talk.id, talk.lines);
      } catch (err) {
        replace(playOut, errorState(err));
      }
    }, "Opening…"));

  /** A conversation waiting for your line: its lines so far, an answer box and End. */
  function waiting(id, lines) {
    const shown = h("div", null, transcript(lines, nameOf));
    const text = h("input", { "aria-label": "Your line", maxlength: "2000" });
    const say = h("button", { class: "primary" }, "Say");
    const end = h("button", null, "End");
    const box = h(
      "article",
      { class: "scene-open", "data-conversation": id },
      h("h4", null, `Conversation ${id}`),
      shown,
      h("div", { class: "row" }, text, say, end),
    );
    const closed = (why) => {
      text.disabled = say.disabled = end.disabled = true;
      shown.append(h("p", { class: "muted" }, `Closed (${why}).`));
    };
    say.addEventListener("click", () =>
      busy(say, async () => {
        try {
          const turn = await api("POST", worldPath(state.id, `/conversations/${id}/lines`), {
            body: { speaker: you.value, text: text.value },
          });
          shown.append(
            transcript([{ speaker: you.value, text: text.value }, ...turn.lines], nameOf),
          );
          text.value = "";
          if (!turn.open) closed(turn.endedBy);
        } catch (err) {
          shown.append(errorState(err));
        }
      }, "Saying…"));
    end.addEventListener("click", () =>
      busy(end, async () => {
        try {
          closed((await api("POST", worldPath(state.id, `/conversations/${id}/end`))).endedBy);
        } catch (err) {
          shown.append(errorState(err));
        }
      }, "Ending…"));
    inbox.prepend(box);
  }

  function renderAgents() {
    const agents = [...state.agents.values()];
    const chosen = new Set([...picks.querySelectorAll("input:checked")].map((i) => i.value));
    replace(
      picks,
      h("legend", null, "Participants (2–8, the first checked starts)"),
      agents.map((a) =>
        h(
          "label",
          null,
          h("input", { type: "checkbox", value: a.id, checked: chosen.has(a.id) }),
          ` ${a.name}${isPlayer(a) ? " (player)" : ""}`,
        )
      ),
    );
    const mine = you.value;
    replace(you, agents.filter(isPlayer).map((a) => h("option", { value: a.id }, a.name)));
    if (mine) you.value = mine;
    replace(
      talkTo,
      agents.filter((a) => !isPlayer(a)).map((a) => h("option", { value: a.id }, a.name)),
    );
    replace(placeList, places(state).map((p) => h("option", { value: p })));
  }

  state.on("agents", renderAgents);
  state.on("env", renderAgents);
  state.on("events", (_s) => {
    for (const e of state.events.slice(-50)) {
      if (e.type !== "conversation.started" || !(e.players ?? []).includes(you.value)) continue;
      if (inbox.querySelector(`[data-conversation="${e.conversationId}"]`)) continue;
      waiting(e.conversationId, e.line ? [e.line] : []);
    }
  });
  renderAgents();

  replace(
    panel,
    h("h3", null, "Group conversation"),
    picks,
    h(
      "div",
      { class: "row" },
      topic,
      h("label", null, hidden, " Private (nobody overhears)"),
      start,
    ),
    groupOut,
    h("h3", null, "Play a player"),
    h("div", { class: "row" }, h("label", null, "You are ", you), newName, create),
    h("div", { class: "row" }, where, placeList, doing, move),
    h("div", { class: "row" }, h("label", null, "Talk to ", talkTo), open),
    playOut,
    inbox,
  );
}
