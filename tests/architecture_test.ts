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
