import assert from "node:assert/strict";

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

function importsOf(source: string): string[] {
  return [
    ...source.matchAll(
      /(?:import|export)[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm,
    ),
  ]
    .map((m) => m[1] ?? m[2] ?? m[3]);
}

Deno.test("src/ imports only zod and other src/ files", async () => {
  const violations: string[] = [];
  for await (const file of tsFiles("src")) {
    for (const spec of importsOf(await Deno.readTextFile(file))) {
      const ok = spec === "zod" || (spec.startsWith(".") && !spec.includes("/lib/") &&
        !spec.includes("/routes/") && !spec.startsWith("../../lib") &&
        !spec.startsWith("../../routes"));
      if (!ok) violations.push(`${file} imports "${spec}"`);
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("src/ uses no Deno, Workers, network, console, clock or randomness globals", async () => {
  const banned =
    /\bDeno\.|(?:await|return|=)\s+fetch\(|globalThis\.fetch|\bconsole\.|\bDate\.now\(|\bnew Date\(\)|Math\.random\(|crypto\.randomUUID|caches\./;
  const violations: string[] = [];
  for await (const file of tsFiles("src")) {
    const lines = (await Deno.readTextFile(file)).split("\n");
    lines.forEach((line, i) => {
      const code = line.trim();
      if (!/^(\*|\/\/|\/\*\*)/.test(code) && banned.test(code)) {
        violations.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(violations, []);
});

Deno.test("lib/ and routes/ never import from each other the wrong way", async () => {
  const violations: string[] = [];
  for await (const file of tsFiles("lib")) {
    for (const spec of importsOf(await Deno.readTextFile(file))) {
      if (spec.includes("routes/")) violations.push(`${file} imports "${spec}"`);
    }
  }
  assert.deepEqual(violations, []);
});

/** The only folders whose files may import the dev and test tooling in `dev/`. */
const DEV_IMPORTERS = ["tests/", "cli/", "dev/"];
/** Generated or installed folders that are not the project's own code. */
const NOT_OURS = new Set(["node_modules", ".git", "dist", "cov", ".wrangler", ".simulacra"]);

/** Whether an import written in `file` resolves into the top-level `dev/` folder. */
function importsDev(file: string, spec: string): boolean {
  if (!spec.startsWith(".")) return false;
  const resolved = new URL(spec, new URL(file, "file:///repo/")).pathname;
  return resolved.startsWith("/repo/dev/");
}

/** Every import of `dev/` from a file outside {@linkcode DEV_IMPORTERS}, as "file imports spec". */
function devImportViolations(files: Map<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, source] of files) {
    if (DEV_IMPORTERS.some((folder) => file.startsWith(folder))) continue;
    for (const spec of importsOf(source)) {
      if (importsDev(file, spec)) violations.push(`${file} imports "${spec}"`);
    }
  }
  return violations;
}

Deno.test("dev/ tooling is imported only from tests/, cli/ and dev/", async (t) => {
  await t.step("the rule catches a product file that imports dev/", () => {
    const planted = new Map([
      ["src/memory/x.ts", `import { a } from "../../dev/fake_openai_server.ts";`],
      ["lib/kv/y.ts", `export { b } from "../../dev/redis_server.ts";`],
      ["main.ts", `const m = await import("./dev/upstash_local.ts");`],
      ["worker.ts", `import "./dev/redis_server.ts";`],
      ["routes/r.ts", `import type { F } from "../dev/fake_openai_server.ts";`],
      ["tests/z_test.ts", `import { c } from "../dev/redis_server.ts";`],
      ["cli/w.ts", `import { d } from "../dev/redis_server.ts";`],
      ["dev/v.ts", `import { d } from "./redis_server.ts";`],
      ["lib/ok.ts", `import { e } from "./development.ts";`],
    ]);
    assert.deepEqual(devImportViolations(planted), [
      `src/memory/x.ts imports "../../dev/fake_openai_server.ts"`,
      `lib/kv/y.ts imports "../../dev/redis_server.ts"`,
      `main.ts imports "./dev/upstash_local.ts"`,
      `worker.ts imports "./dev/redis_server.ts"`,
      `routes/r.ts imports "../dev/fake_openai_server.ts"`,
    ]);
  });

  await t.step("no file of the product imports dev/", async () => {
    const files = new Map<string, string>();
    for await (const entry of Deno.readDir(".")) {
      if (NOT_OURS.has(entry.name)) continue;
      const paths = entry.isDirectory
        ? await Array.fromAsync(tsFiles(entry.name))
        : entry.name.endsWith(".ts")
        ? [entry.name]
        : [];
      for (const path of paths) files.set(path, await Deno.readTextFile(path));
    }
    assert.ok(files.has("main.ts") && files.has("worker.ts") && files.size > 100);
    assert.deepEqual(devImportViolations(files), []);
  });
});

// ---------------------------------------------------------------------------------------------
// The layers of src/. Each unit (a folder of src/, or a file at its top) may import itself and
// only the units listed for it, so every dependency points down: memory ← cognition ← simulation
// ← eval, with the generic tick engine below the world it ticks (it talks to it through its
// clock port, src/engine/tick_clock.ts). A new import that points up or sideways fails here: move
// the code to the layer it belongs to, or pass what it needs in from above.
// ---------------------------------------------------------------------------------------------

/** The bottom: error types, ids, the version. */
const BASE = ["errors.ts", "ids.ts", "version.ts"];
const PORTS = [...BASE, "time", "model", "ports", "deps.ts"];
const STATE = [...PORTS, "engine", "world", "prompts", "agents"];

/** Unit → the units it may import (besides itself). */
const LAYERS: Record<string, readonly string[]> = {
  "errors.ts": [],
  "ids.ts": [],
  "version.ts": [],
  access: BASE, // API keys: permissions, scopes, principals
  text: BASE, // text hygiene at the edge (control characters, JSON depth)
  time: BASE,
  model: BASE, // what a model call costs (usage)
  ports: [...BASE, "time", "model", "prompts"], // the interfaces lib/ implements, and the records they carry
  "deps.ts": [...BASE, "ports"],
  engine: PORTS, // the generic tick loop, leases, the bounded pool
  world: [...PORTS, "engine"], // the world document, its clock, places, settings, event feed
  prompts: [...PORTS, "world"], // one module per prompt with its output schema
  agents: [...PORTS, "engine", "world"], // the agent document and its lock (an engine lease)
  memory: STATE, // storing, scoring and retrieving memories
  archive: [...STATE, "memory", "lifecycle"], // a world as one file: export, import, fork
  cognition: [...STATE, "memory"], // reflection, planning, reaction, dialogue, summaries
  persona: [...STATE, "access", "text", "memory", "cognition"], // who an agent is: creation, cards, role-play
  app: [...STATE, "memory", "cognition"], // the operations: each locks, loads and commits once
  simulation: [...STATE, "memory", "cognition", "app"], // one agent's step, one world's tick, the cron
  lifecycle: STATE, // deleting worlds and agents with all they own, forgetting memories, pages
  templates: [...STATE, "memory", "cognition", "persona", "simulation", "archive"], // ready-made towns
  eval: [...STATE, "memory", "cognition", "persona", "simulation", "templates"], // town runs
};

/** The unit of a path under src/: its first folder, or the file itself at the top. */
function unitOf(pathInSrc: string): string {
  return pathInSrc.split("/")[0];
}

/** Every import from one src/ unit into another that the layer table does not allow. */
export async function layerViolations(
  files: AsyncIterable<string>,
  read: (file: string) => Promise<string>,
): Promise<string[]> {
  const violations: string[] = [];
  for await (const file of files) {
    const from = unitOf(file.slice("src/".length));
    const allowed = LAYERS[from];
    if (!allowed) {
      violations.push(`${file}: unit "${from}" is not in the layer table`);
      continue;
    }
    for (const spec of importsOf(await read(file))) {
      if (!spec.startsWith(".")) continue;
      const target = new URL(spec, `file:///${file}`).pathname.slice(1);
      if (!target.startsWith("src/")) continue;
      const to = unitOf(target.slice("src/".length));
      if (to !== from && !allowed.includes(to)) {
        violations.push(`${file} (${from}) imports "${spec}" (${to})`);
      }
    }
  }
  return violations;
}

Deno.test("src/ folders depend one way, as the layer table allows", async () => {
  assert.deepEqual(await layerViolations(tsFiles("src"), (f) => Deno.readTextFile(f)), []);
});

Deno.test("the layer check catches an import that points up", async () => {
  async function* files() {
    yield "src/memory/perceive.ts";
    yield "src/engine/tick_engine.ts";
    yield "src/cognition/planning.ts";
  }
  const sources: Record<string, string> = {
    "src/memory/perceive.ts": 'import { reflect } from "../cognition/reflection.ts";',
    "src/engine/tick_engine.ts": 'import type { World } from "../world/world.ts";',
    "src/cognition/planning.ts": 'import { recall } from "../memory/recall.ts";',
  };
  assert.deepEqual(await layerViolations(files(), (f) => Promise.resolve(sources[f])), [
    'src/memory/perceive.ts (memory) imports "../cognition/reflection.ts" (cognition)',
    'src/engine/tick_engine.ts (engine) imports "../world/world.ts" (world)',
  ]);
});

/**
 * Most lines a file of src/ or lib/ may have (the style guide's ceiling); `src/templates/` holds
 * data.
 */
const MAX_LINES = 400;

/** Every file of `files` outside src/templates/ longer than {@linkcode MAX_LINES}. */
function oversizedFiles(files: Map<string, string>): string[] {
  return [...files]
    .filter(([file]) => !file.startsWith("src/templates/"))
    .map(([file, source]) => [file, source.split("\n").length - (source.endsWith("\n") ? 1 : 0)])
    .filter(([, lines]) => (lines as number) > MAX_LINES)
    .map(([file, lines]) => `${file}: ${lines} lines`);
}

Deno.test("no src/ or lib/ file outside src/templates/ is over 400 lines", async (t) => {
  await t.step("the rule catches a long file and spares templates/", () => {
    const long = "x\n".repeat(MAX_LINES + 1);
    assert.deepEqual(
      oversizedFiles(
        new Map([
          ["src/memory/long.ts", long],
          ["lib/kv/long.ts", long],
          ["src/memory/just_fits.ts", "x\n".repeat(MAX_LINES)],
          ["src/templates/town.ts", long],
        ]),
      ),
      [`src/memory/long.ts: ${MAX_LINES + 1} lines`, `lib/kv/long.ts: ${MAX_LINES + 1} lines`],
    );
  });

  for (const [dir, atLeast] of [["src", 50], ["lib", 30]] as const) {
    await t.step(`every ${dir}/ file fits`, async () => {
      const files = new Map<string, string>();
      for await (const file of tsFiles(dir)) files.set(file, await Deno.readTextFile(file));
      assert.ok(files.size > atLeast);
      assert.deepEqual(oversizedFiles(files), []);
    });
  }
});
