/**
 * @module The playground's entry: service status, the admin-key prompt, the worlds list and
 * routing between it and an open world (`/?world=…&agent=…`, so links can be shared).
 */
import { api, ApiError, onKeyNeeded } from "./api.js";
import { errorState, h, loading, replace } from "./dom.js";
import { openWorldView } from "./world_view.js";
import { worldsView } from "./worlds_view.js";

const main = document.getElementById("main");
/** What /health says about the model, shown in the header and the usage tab. */
export const service = { health: null };
let closeCurrent = () => {};

/** The admin-key dialog; resolves to the key typed, or null when cancelled. */
function askForKey(reason) {
  const dialog = document.getElementById("key-dialog");
  const input = document.getElementById("key-input");
  document.getElementById("key-reason").textContent = reason;
  input.value = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok" && input.value.trim() ? input.value.trim() : null);
    }, { once: true });
    dialog.showModal();
    input.focus();
  });
}

function renderStatus(health, err) {
  const box = document.getElementById("service-status");
  if (err) {
    replace(box, h("span", { class: "badge bad" }, `Server: ${err.message}`));
    return;
  }
  const offline = health.model.mode === "offline";
  replace(
    box,
    h(
      "span",
      {
        class: `badge ${offline ? "offline" : "online"}`,
        id: "model-mode",
        title: offline
          ? "Answers come from the built-in offline model: a rule-based stand-in (replayable with a world seed), not a language model. Set OPENAI_API_KEY or OPENAI_BASE_URL for real minds."
          : `Main model ${health.model.main}, fast model ${health.model.fast}`,
      },
      offline ? "Offline stand-in model" : `Model: ${health.model.main}`,
    ),
    h("span", { class: "badge neutral" }, `Storage: ${health.storage}`),
    h("span", { class: "badge neutral" }, `v${health.version}`),
  );
}

/** Reads the URL and shows the worlds list or a world (and agent). */
async function route() {
  closeCurrent();
  closeCurrent = () => {};
  const params = new URLSearchParams(location.search);
  const worldId = params.get("world");
  if (!worldId) {
    document.title = "Simulacra playground";
    closeCurrent = await worldsView(main, { open: navigate });
    return;
  }
  closeCurrent = await openWorldView(main, {
    worldId,
    agentId: params.get("agent"),
    navigate,
    service,
  });
}

/** Changes the URL (world and agent) and shows it. */
export function navigate({ world, agent } = {}, { replaceOnly = false } = {}) {
  const params = new URLSearchParams();
  if (world) params.set("world", world);
  if (world && agent) params.set("agent", agent);
  const url = params.size ? `/?${params}` : "/";
  if (replaceOnly) {
    history.replaceState(null, "", url);
    return;
  }
  history.pushState(null, "", url);
  route();
}

async function boot() {
  onKeyNeeded(askForKey);
  replace(main, loading("Connecting to the server…"));
  try {
    service.health = await api("GET", "/health");
    renderStatus(service.health);
  } catch (err) {
    renderStatus(null, err);
    replace(
      main,
      errorState(err instanceof ApiError ? err : new ApiError(0, "error", String(err))),
    );
    return;
  }
  document.getElementById("home-link").addEventListener("click", (e) => {
    e.preventDefault();
    navigate({});
  });
  addEventListener("popstate", route);
  await route();
}

boot();
