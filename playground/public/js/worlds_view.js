/** @module The worlds list: pick a world, or create one (empty or the smallville example town). */
import { api, listAll } from "./api.js";
import { busy, empty, errorState, h, loading, nextId, replace } from "./dom.js";
import { worldListItem } from "./world_list_item.js";

function field(label, input) {
  const id = input.id || nextId("f");
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input);
}

function createForm(open) {
  const name = h("input", { name: "name", required: true, maxlength: 200, value: "Smallville" });
  const template = h(
    "select",
    { name: "template" },
    h("option", { value: "smallville" }, "The smallville example town (25 agents)"),
    h("option", { value: "" }, "An empty world"),
  );
  const start = h("input", {
    name: "startTime",
    required: true,
    pattern: "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}",
    value: "2023-02-13T07:00:00",
    title: "Game time as YYYY-MM-DDTHH:MM:SS",
  });
  const minutes = h("input", {
    name: "minutesPerTick",
    type: "number",
    min: 1,
    max: 1440,
    value: "10",
  });
  const clockMode = h(
    "select",
    { name: "clockMode" },
    h("option", { value: "manual" }, "Only when I press Tick or Play (manual clock)"),
    h("option", { value: "cron" }, "Also every real minute, by the server's scheduler (cron)"),
  );
  const result = h("div", { "aria-live": "polite" });
  const submit = h("button", { class: "primary", type: "submit" }, "Create world");
  const form = h(
    "form",
    { class: "card create-world", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, "New world"),
    field("Name", name),
    field("Start from", template),
    field("Start time (game time)", start),
    field("Game minutes per tick", minutes),
    field("Time moves", clockMode),
    h("div", { class: "row" }, submit),
    result,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      name: name.value.trim(),
      startTime: start.value.trim(),
      minutesPerTick: Number(minutes.value),
      clock: { mode: clockMode.value },
      ...(template.value ? { template: template.value } : {}),
    };
    replace(result, template.value ? loading("Creating the town and its 25 agents…") : null);
    try {
      const world = await busy(submit, () => api("POST", "/v1/worlds", { body }), "Creating…");
      open({ world: world.id });
    } catch (err) {
      replace(result, errorState(err));
    }
  });
  return form;
}

/** Shows the worlds and the create form; returns a cleanup function. */
export async function worldsView(main, { open }) {
  const list = h("section", { class: "card", "aria-labelledby": "worlds-title" });
  replace(
    main,
    h(
      "div",
      { class: "worlds-page" },
      h(
        "section",
        { class: "intro" },
        h("h2", null, "Run a town, watch it, look inside minds, talk to agents"),
        h(
          "p",
          null,
          "Create the example town, press Tick or Play, open an agent to see its plan, memories, reflections and why it recalls what it recalls, then talk to it.",
        ),
      ),
      list,
      createForm(open),
    ),
  );
  replace(list, h("h2", { id: "worlds-title" }, "Worlds"), loading("Loading worlds…"));
  try {
    const worlds = await listAll("/v1/worlds", "worlds");
    const none = () =>
      empty("No worlds yet: create one with the form (the example town is a good start).");
    const ul = h("ul", { class: "world-list" });
    const status = h("p", { class: "ok", role: "status" });
    const onDeleted = (w) => {
      status.textContent = `Deleted “${w.name}”.`;
      if (!ul.hasChildNodes()) ul.replaceWith(none());
    };
    ul.append(...worlds.map((w) => worldListItem(w, { open, onDeleted })));
    replace(list, h("h2", { id: "worlds-title" }, "Worlds"), status, worlds.length ? ul : none());
  } catch (err) {
    replace(list, h("h2", { id: "worlds-title" }, "Worlds"), errorState(err));
  }
  return () => {};
}
