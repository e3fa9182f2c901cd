/**
 * @module World edits: set an object's state in words, and import a Character Card (JSON or
 * PNG, by file picker or drag and drop) as a new agent.
 */
import { api, worldPath } from "./api.js";
import { busy, errorState, h, nextId, replace } from "./dom.js";
import { objectPicker } from "./object_picker.js";

function objectForm(state) {
  const stateId = nextId("state");
  const picker = objectPicker({ onChange: showState });
  const object = picker.select;
  const value = h("input", {
    id: stateId,
    required: true,
    maxlength: 500,
    placeholder: "e.g. on fire",
  });
  const submit = h("button", { class: "primary", type: "submit" }, "Set state");
  const out = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "card" },
    h("h3", null, "Object state"),
    h(
      "p",
      { class: "muted" },
      "Agents nearby perceive the change on their next tick and may react to it.",
    ),
    picker.element,
    h("div", { class: "field" }, h("label", { for: stateId }, "State"), value),
    h("div", { class: "row" }, submit),
    out,
  );
  function fill() {
    picker.fill(state.env);
    submit.disabled = object.disabled;
    if (!state.env?.areas?.length) {
      replace(
        out,
        h("p", { class: "muted" }, "This world has no environment, so no objects to change."),
      );
    }
  }
  function showState() {
    const [a, s, o] = object.value.split(":");
    const found = state.env?.areas.find((x) => x.name === a)?.subAreas.find((x) => x.name === s)
      ?.objects.find((x) => x.name === o);
    value.value = found?.state ?? "";
    submit.disabled = object.disabled;
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const result = await busy(
        submit,
        () =>
          api("PATCH", worldPath(state.id, "/objects"), {
            body: { path: object.value, state: value.value.trim() },
          }),
        "Saving…",
      );
      await state.reloadEnvironment();
      replace(
        out,
        h("p", { class: "ok" }, `${result.path.replaceAll(":", " › ")} is now “${result.state}”.`),
      );
    } catch (err) {
      replace(out, errorState(err));
    }
  });
  state.on("env", fill);
  fill();
  showState();
  return {
    form,
    pick(path) {
      picker.pick(path);
      value.focus();
      value.select();
    },
  };
}

/** The content type a card file is sent with, or null when it is neither JSON nor PNG. */
function cardType(file) {
  if (file.type === "image/png" || /\.png$/i.test(file.name)) return "image/png";
  if (file.type === "application/json" || /\.json$/i.test(file.name)) return "application/json";
  return null;
}

function importForm(state, onImported) {
  const fileId = nextId("card");
  const idId = nextId("agent-id");
  const file = h("input", {
    id: fileId,
    type: "file",
    accept: ".json,.png,application/json,image/png",
  });
  const agentId = h("input", {
    id: idId,
    maxlength: 64,
    pattern: "[A-Za-z0-9_-]{1,64}",
    placeholder: "minted when empty",
  });
  const out = h("div", { "aria-live": "polite" });
  const drop = h(
    "div",
    { class: "drop", id: "card-drop" },
    h("p", null, "Drop a Character Card here (V2/V3, .json or .png)"),
    h("div", { class: "field" }, h("label", { for: fileId }, "Character card file"), file),
  );
  async function upload(f) {
    const type = cardType(f);
    if (!type) {
      replace(
        out,
        errorState({ message: `Cannot import "${f.name}": pick a .json or .png Character Card` }),
      );
      return;
    }
    replace(out, h("p", { role: "status", class: "state loading" }, `Importing ${f.name}…`));
    const id = agentId.value.trim();
    try {
      const agent = await api(
        "POST",
        worldPath(state.id, `/agents/import${id ? `?id=${encodeURIComponent(id)}` : ""}`),
        { raw: await f.arrayBuffer(), contentType: type },
      );
      state.addAgent(agent);
      const open = h("button", { onClick: () => onImported(agent.id) }, `Open ${agent.name}`);
      replace(
        out,
        h(
          "p",
          { class: "ok" },
          `Imported ${agent.name} as “${agent.id}”: ${agent.seeds.length} seed memories, ${agent.lore.length} lorebook entries, persona from ${
            agent.card.personaFrom === "extension" ? "the card" : "the model"
          }. `,
          open,
        ),
      );
    } catch (err) {
      replace(out, errorState(err));
    } finally {
      file.value = "";
    }
  }
  file.addEventListener("change", () => file.files[0] && upload(file.files[0]));
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer?.files?.[0];
    if (f) upload(f);
  });
  return h(
    "section",
    { class: "card" },
    h("h3", null, "Import a Character Card"),
    h(
      "p",
      { class: "muted" },
      "The card becomes a new agent: its description seeds memories, its lorebook becomes recallable knowledge, creator notes are dropped.",
    ),
    h("div", { class: "field" }, h("label", { for: idId }, "Agent id (optional)"), agentId),
    drop,
    out,
  );
}

/** The Edit world tab; `pickObject(path)` selects an object clicked on the board. */
export function worldEdits(panel, state, { onImported }) {
  const objects = objectForm(state);
  replace(panel, h("h2", null, "Edit world"), objects.form, importForm(state, onImported));
  return { pickObject: (path) => objects.pick(path) };
}
