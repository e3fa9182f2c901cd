/**
 * The project's structure, enforced: the layers of src/ and what may import them, entry modules,
 * private files, no import cycles, signatures and file sizes. A wrong import fails here: move
 * the code to the layer it belongs to, or pass what it needs in from above. The README's
 * "Layout" section walks through the layers.
 */
import assert from "node:assert/strict";
import { dirname, relative } from "node:path";
import {
  importCycles,
  importGraph,
  importsOf,
  productSources,
  resolveImport,
  tsFiles,
} from "./_helpers/import_graph.ts";
import { wideFunctions } from "./_helpers/signatures.ts";
import { argumentMutations } from "./_helpers/mutations.ts";

const product = await productSources();
const inSrc = [...product.keys()].filter((f) => f.startsWith("src/"));

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
// Layers. domain/ is pure and synchronous; ports/ are the interfaces lib/ implements; mind/ is
// the only place that calls the language model or the embedder; app/ runs one transaction per
// operation; eval/ measures whole runs through app/.
// ---------------------------------------------------------------------------------------------

/** Layer → the layers it may import besides itself. */
const LAYERS: Record<string, readonly string[]> = {
  domain: [],
  ports: ["domain"],
  mind: ["domain", "ports"],
  app: ["domain", "ports", "mind"],
  eval: ["domain", "ports", "app"],
};
/** Top folder outside src/ → the layers of src/ it may import. */
const OUTSIDE: Record<string, readonly string[]> = {
  lib: ["domain", "ports"],
  routes: ["domain", "ports", "app"],
  // The ready-made towns: data in the core's shapes, which the entry points hand to the core.
  towns: ["domain", "app"],
};

/** The layer of a path under src/ (its first folder), or null outside src/. */
function layerOf(path: string): string | null {
  return path.startsWith("src/") ? path.split("/")[1] : null;
}

/** Imports from one layer (or lib/, routes/) into a layer the tables do not allow. */
export function layerViolations(files: Map<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file) ?? file.split("/")[0];
    const allowed = LAYERS[from] ?? OUTSIDE[from];
    if (file.startsWith("src/") && !allowed) violations.push(`${file}: "${from}" is not a layer`);
    if (!allowed) continue;
    for (const spec of importsOf(source)) {
      const target = resolveImport(file, spec);
      const to = target && layerOf(target);
      if (to && to !== from && !allowed.includes(to)) {
        violations.push(`${file} (${from}) imports "${spec}" (${to})`);
      }
    }
  }
  return violations;
}

Deno.test("src/ has the four layers and eval/, and nothing else at its top", async () => {
  const top = (await Array.fromAsync(Deno.readDir("src"))).map((e) => e.name).sort();
  assert.deepEqual(top, ["app", "domain", "eval", "mind", "ports"]);
});

Deno.test("layers import one way: domain ← ports ← mind ← app ← eval; lib/ sees only domain and ports", () => {
  assert.deepEqual(layerViolations(product), []);
});

Deno.test("the layer check catches imports that point up", () => {
  const planted = new Map([
    ["src/domain/world/world.ts", 'import { getWorld } from "../../app/mod.ts";'],
    ["src/mind/importance.ts", 'import { x } from "../app/mod.ts";'],
    ["lib/kv/store.ts", 'import { y } from "../../src/app/mod.ts";'],
    ["src/app/memory/perceive.ts", 'import { z } from "../../mind/mod.ts";'],
  ]);
  assert.deepEqual(layerViolations(planted), [
    'src/domain/world/world.ts (domain) imports "../../app/mod.ts" (app)',
    'src/mind/importance.ts (mind) imports "../app/mod.ts" (app)',
    'lib/kv/store.ts (lib) imports "../../src/app/mod.ts" (app)',
  ]);
});

Deno.test("domain/ is synchronous: no async functions, no await", () => {
  const found = inSrc.filter((f) => f.startsWith("src/domain/"))
    .filter((f) => /\basync\b|\bawait\b/.test(product.get(f)!.replace(/^\s*(\*|\/\/).*$/gm, "")));
  assert.deepEqual(found, []);
});

/** A call of the language model or the embedder. */
const MODEL_CALL = /\b(?:model|embedder)\.(?:complete|stream|embed)\(/;

Deno.test("only mind/ calls the language model or the embedder", () => {
  const found = inSrc.filter((f) => !f.startsWith("src/mind/") && MODEL_CALL.test(product.get(f)!));
  assert.deepEqual(found, []);
  assert.ok(inSrc.some((f) => f.startsWith("src/mind/") && MODEL_CALL.test(product.get(f)!)));
});

// ---------------------------------------------------------------------------------------------
// Modules: every folder of src/ has a mod.ts, its public face. A file imports a file of its own
// folder, a file at the top of a folder above it, or the mod.ts of a folder beside one of its
// ancestors; outside src/, only a layer's mod.ts. Files named _x.ts are private to their folder.
// ---------------------------------------------------------------------------------------------

/** Why importing `target` from `file` breaks the module rules, or null when it does not. */
export function moduleViolation(file: string, target: string): string | null {
  // Tests reach into what they test, private files included.
  if (file.startsWith("tests/")) return null;
  const name = target.split("/").at(-1)!;
  if (name.startsWith("_") && dirname(file) !== dirname(target)) {
    return "imports a private file of another folder";
  }
  if (!target.startsWith("src/")) return null;
  if (!file.startsWith("src/")) {
    return target === `src/${target.split("/")[1]}/mod.ts` ? null : "imports past a layer's mod.ts";
  }
  const rest = relative(commonFolder(dirname(file), dirname(target)), target).split("/");
  return rest.length === 1 || (rest.length === 2 && rest[1] === "mod.ts")
    ? null
    : "imports past a folder's mod.ts";
}

function commonFolder(a: string, b: string): string {
  const pa = a.split("/"), pb = b.split("/");
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  return pa.slice(0, i).join("/");
}

function moduleViolations(files: Map<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, targets] of importGraph(files)) {
    for (const target of targets) {
      const why = moduleViolation(file, target);
      if (why) violations.push(`${file} ${why}: ${target}`);
    }
  }
  return violations;
}

Deno.test("every folder of src/ has a mod.ts", () => {
  const folders = new Set(inSrc.map((f) => dirname(f)).filter((d) => d !== "src"));
  const missing = [];
  for (const folder of folders) {
    if (!product.has(`${folder}/mod.ts`)) missing.push(folder);
  }
  assert.deepEqual(missing, []);
  assert.ok(folders.size > 10);
});

Deno.test("folders are imported through their mod.ts, and _ files stay private", async (t) => {
  await t.step("the rule catches a reach past mod.ts and a private import", () => {
    assert.equal(
      moduleViolation("src/app/memory/perceive.ts", "src/domain/memory/scoring.ts"),
      "imports past a folder's mod.ts",
    );
    assert.equal(moduleViolation("src/app/memory/perceive.ts", "src/domain/mod.ts"), null);
    assert.equal(moduleViolation("src/domain/world/world.ts", "src/domain/time/mod.ts"), null);
    assert.equal(moduleViolation("src/domain/world/world.ts", "src/domain/errors.ts"), null);
    assert.equal(
      moduleViolation("routes/agents.ts", "src/app/agents/agent_store.ts"),
      "imports past a layer's mod.ts",
    );
    assert.equal(
      moduleViolation("src/app/x/a.ts", "src/app/y/_b.ts"),
      "imports a private file of another folder",
    );
    assert.equal(moduleViolation("tests/src/app/y/b_test.ts", "src/app/y/_b.ts"), null);
    assert.equal(moduleViolation("tests/src/app/y/b_test.ts", "src/domain/x/file.ts"), null);
    assert.equal(
      moduleViolation("dev/fake.ts", "lib/offline/_text.ts"),
      "imports a private file of another folder",
    );
  });
  await t.step("no product file breaks them", () => {
    assert.deepEqual(moduleViolations(product), []);
  });
});

Deno.test("the product has no import cycles", () => {
  assert.deepEqual(importCycles(importGraph(product)), []);
  const planted = new Map(
    [["a.ts", "./b.ts"], ["b.ts", "./a.ts"]].map(([f, s]) => [f, `import "${s}";`]),
  );
  assert.deepEqual(importCycles(importGraph(planted)), [["a.ts", "b.ts"]]);
});

// ---------------------------------------------------------------------------------------------
// Signatures and sizes.
// ---------------------------------------------------------------------------------------------

Deno.test("functions take at most three parameters, the last an options object", () => {
  const wide = [...product].flatMap(([file, source]) => wideFunctions(file, source));
  assert.deepEqual(wide, []);
  const planted = wideFunctions(
    "x.ts",
    "function f(a: 1, b: 2, c: 3, d: 4) {}\nconst g = (a, b, c) => a;",
  );
  assert.deepEqual(planted, ["x.ts:1 f (4)"]);
});

/** Most lines a file of src/ or lib/ may have (town data lives in towns/, outside both). */
const MAX_LINES = 300;
/** Every file of src/ and lib/ longer than {@linkcode MAX_LINES}, as "file: n lines". */
function oversized(files: Map<string, string>): string[] {
  return [...files].filter(([f]) => f.startsWith("src/") || f.startsWith("lib/"))
    .map(([f, s]) => [f, s.split("\n").length - (s.endsWith("\n") ? 1 : 0)] as const)
    .filter(([, n]) => n > MAX_LINES)
    .map(([f, n]) => `${f}: ${n} lines`);
}

Deno.test(`src/ and lib/ files are at most ${MAX_LINES} lines`, () => {
  assert.deepEqual(oversized(product), []);
  const long = "x\n".repeat(MAX_LINES + 1);
  const planted = new Map([["src/app/a.ts", long], ["lib/b.ts", "x\n"], ["towns/t.ts", long]]);
  assert.deepEqual(oversized(planted), [`src/app/a.ts: ${MAX_LINES + 1} lines`]);
});

// ---------------------------------------------------------------------------------------------
// Arguments. A function returns new values instead of changing what it was given, so a caller
// can trust its own data after the call. State that must change in place (a cache, a memo, a
// staging record) is an object that changes itself through its own methods (`this`).
// ---------------------------------------------------------------------------------------------

Deno.test("no function of src/ or lib/ mutates an argument it was given", async (t) => {
  await t.step("the rule catches assignments and mutating calls through parameters", () => {
    const planted = new Map([[
      "src/app/x.ts",
      [
        "interface Store { set(key: string): void }",
        "export function a(p: { x: number; n: number; k: Record<string, number> }, k: string) {",
        "  p.x = 1; p.k[k] += 2; delete p.k[k]; p.n++; Object.assign(p, { x: 2 });",
        "}",
        "export function b(list: number[], opts: { seen: Set<string>; cache: Map<string, number> }) {",
        "  list.push(1); opts.cache.set('a', 1);",
        "  const seen = opts.seen; seen.add('x');",
        "  list.slice().sort(); const own: number[] = []; own.push(1);",
        "}",
        "export const c = ({ items }: { items: string[] }) => items.sort();",
        "export function d(store: Store, deps: { store: Store }) { store.set('k'); deps.store.set('k'); }",
        "export class E { x: number[] = []; add(n: number) { this.x.push(n); } }",
        "export function f(rows: number[][]) { rows.forEach((row) => { row[0] = 1; }); }",
      ].join("\n"),
    ]]);
    assert.deepEqual(argumentMutations(planted), [
      "src/app/x.ts a: p.x =",
      "src/app/x.ts a: p.k[k] +=",
      "src/app/x.ts a: delete p.k[k]",
      "src/app/x.ts a: p.n++",
      "src/app/x.ts a: Object.assign(p, …)",
      "src/app/x.ts b: list.push(…)",
      "src/app/x.ts b: opts.cache.set(…)",
      "src/app/x.ts b: seen.add(…)",
      "src/app/x.ts c: items.sort(…)",
      "src/app/x.ts f: row[0] =",
    ]);
  });
  await t.step("no function of src/ or lib/ does", () => {
    const checked = new Map(
      [...product].filter(([file]) => file.startsWith("src/") || file.startsWith("lib/")),
    );
    assert.deepEqual(argumentMutations(checked), []);
  });
});
