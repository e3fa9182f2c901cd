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
      /(?:import|export)[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
    ),
  ]
    .map((m) => m[1] ?? m[2]);
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
