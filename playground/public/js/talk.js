/**
 * @module Talk: chat with the agent as a chosen speaker, whisper as its inner voice, or interview
 * it. The reply streams in as the model writes it; then it shows the facets and memories it
 * used, whether it was bounded, and its tokens.
 */
import { agentPath, apiStream } from "./api.js";
import { busy, count, errorState, h, nextId, replace } from "./dom.js";
import { provenanceBadge } from "./memory_views.js";
import { replyActions } from "./game_hooks.js";

const MODES = [
  { value: "chat", label: "Chat", hint: "remembered as told by the speaker" },
  {
    value: "inner_voice",
    label: "Inner voice",
    hint: "a directive the agent takes as its own; may re-plan",
  },
  { value: "interview", label: "Interview", hint: "nothing is remembered" },
];

/** The spoken line without the "Name: " prefix (`text` once the API sends it). */
function spoken(result, name) {
  if (typeof result.text === "string") return result.text;
  const prefix = `${name}: `;
  return result.reply.startsWith(prefix) ? result.reply.slice(prefix.length) : result.reply;
}

function replyDetails(result) {
  const tokens = result.usage.promptTokens + result.usage.completionTokens;
  return h(
    "details",
    { class: "reply-details" },
    h(
      "summary",
      null,
      `Why: ${result.facets.length} facets, ${result.memories.length} memories`,
      result.bounded ? " · bounded" : "",
      ` · ${count(tokens)} tokens`,
    ),
    h(
      "div",
      { class: "why" },
      h(
        "p",
        null,
        result.bounded
          ? h(
            "span",
            { class: "badge bounded" },
            "Bounded: the question reaches beyond what it can know",
          )
          : h("span", { class: "badge neutral" }, "Not bounded"),
        " ",
        h(
          "span",
          { class: "muted" },
          `${result.usage.calls} model calls · ${count(result.usage.promptTokens)} prompt + ${
            count(result.usage.completionTokens)
          } completion tokens`,
        ),
        result.replanned ? h("span", { class: "badge neutral" }, "re-planned") : null,
      ),
      h("h5", null, "Facets"),
      result.facets.length
        ? h(
          "ul",
          null,
          result.facets.map((f) =>
            h("li", null, `${f.title} `, h("span", { class: "muted" }, f.score.toFixed(2)))
          ),
        )
        : h("p", { class: "muted" }, "None (the agent has no persona, or no facet was cued)"),
      h("h5", null, "Memories"),
      result.memories.length
        ? h(
          "ul",
          null,
          result.memories.map((m) =>
            h("li", null, m.description, " ", provenanceBadge(m.provenance))
          ),
        )
        : h("p", { class: "muted" }, "None"),
    ),
  );
}

/** The talk form and its transcript for one agent. */
export function talkSection(state, agent) {
  const group = nextId("mode");
  let mode = "chat";
  let conversationId = null;
  const speakerId = nextId("speaker");
  const messageId = nextId("message");
  const speaker = h("input", { id: speakerId, value: "A visitor", maxlength: 100 });
  const speakerField = h(
    "div",
    { class: "field" },
    h("label", { for: speakerId }, "Speak as"),
    speaker,
  );
  const message = h("textarea", { id: messageId, rows: 2, required: true, maxlength: 4000 });
  const send = h("button", { class: "primary", type: "submit" }, "Send");
  const restart = h("button", { type: "button", class: "small" }, "New conversation");
  const log = h("ol", { class: "chat-log", "aria-live": "polite", "aria-label": "Conversation" });
  const modes = h(
    "fieldset",
    { class: "modes" },
    h("legend", null, "Mode"),
    MODES.map((m) =>
      h(
        "label",
        { title: m.hint },
        h("input", {
          type: "radio",
          name: group,
          value: m.value,
          checked: m.value === mode,
          onChange: () => {
            mode = m.value;
            speakerField.hidden = mode === "inner_voice";
            conversationId = null;
          },
        }),
        ` ${m.label}`,
      )
    ),
  );
  restart.addEventListener("click", () => {
    conversationId = null;
    replace(log);
  });
  const form = h(
    "form",
    { class: "talk" },
    modes,
    speakerField,
    h("div", { class: "field" }, h("label", { for: messageId }, "Message"), message),
    h("div", { class: "row" }, send, restart),
    log,
  );
  // Enter sends, Shift+Enter makes a new line.
  message.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = message.value.trim();
    if (!text) return;
    const who = mode === "inner_voice" ? "Inner voice" : speaker.value.trim() || "A visitor";
    const body = {
      message: text,
      mode,
      ...(mode === "inner_voice" ? {} : { speaker: { name: who } }),
      ...(conversationId ? { conversationId } : {}),
    };
    log.append(h("li", { class: `said ${mode}` }, h("strong", null, `${who}: `), text));
    const words = h("span", { class: "reply-text" });
    const pending = h(
      "li",
      { class: "reply pending", role: "status" },
      h("strong", null, `${agent.name}: `),
      words,
      h("span", { class: "muted thinking" }, "…"),
    );
    log.append(pending);
    message.value = "";
    try {
      // The spoken words appear as they arrive; the finished reply replaces them.
      const result = await busy(
        send,
        () =>
          apiStream("POST", agentPath(state.id, agent.id, "/respond"), {
            body,
            onDelta: ({ text }) => words.append(text),
          }),
        "Sending…",
      );
      if (mode !== "interview") conversationId = result.conversationId;
      pending.replaceWith(
        h(
          "li",
          { class: "reply" },
          h("strong", null, `${agent.name}: `),
          h("span", { class: "reply-text" }, spoken(result, agent.name)),
          replyActions(result),
          replyDetails(result),
        ),
      );
    } catch (err) {
      pending.replaceWith(h("li", null, errorState(err)));
      message.value = text;
    }
    message.focus();
  });
  return form;
}
