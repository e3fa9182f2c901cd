/**
 * Deno installs every npm package named in the configured lockfile before `deno task start`
 * runs, used or not. So `deno.lock` holds only what the server imports (the `imports` of
 * deno.json), and test-only packages live in `deno.dev.lock`, which the test, check and bench
 * tasks pass with `--lock`.
 */
import assert from "node:assert/strict";

interface Lockfile {
  specifiers: Record<string, string>;
  npm: Record<string, { dependencies?: string[]; optionalDependencies?: string[] }>;
}

const root = new URL("../", import.meta.url);
const readJson = async (name: string) => JSON.parse(await Deno.readTextFile(new URL(name, root)));

/** `npm:@scope/name@^1.2` → `@scope/name`. */
function packageName(specifier: string): string {
  const bare = specifier.replace(/^npm:\/?/, "");
  const at = bare.indexOf("@", 1);
  return (at === -1 ? bare : bare.slice(0, at)).replace(/\/$/, "");
}

/** Every `name@version` key reachable from the lockfile's top-level specifiers. */
function reachable(lock: Lockfile): Set<string> {
  const seen = new Set<string>();
  const todo = Object.entries(lock.specifiers).map(([spec, version]) =>
    `${packageName(spec)}@${version}`
  );
  while (todo.length > 0) {
    const key = todo.pop()!;
    if (seen.has(key) || !(key in lock.npm)) continue;
    seen.add(key);
    const entry = lock.npm[key];
    for (const dep of [...(entry.dependencies ?? []), ...(entry.optionalDependencies ?? [])]) {
      // A dependency is written `name` (version in the key) or `alias@npm:name@version`.
      const match = Object.keys(lock.npm).find((k) =>
        k === dep || k.startsWith(`${dep}@`) || dep.endsWith(`@npm:${k}`)
      );
      if (match) todo.push(match);
    }
  }
  return seen;
}

Deno.test("deno.lock holds only the packages the server imports", async () => {
  const config = await readJson("deno.json");
  const lock: Lockfile = await readJson("deno.lock");
  const allowed = new Set(
    Object.values(config.imports as Record<string, string>).map(packageName),
  );
  const stray = Object.keys(lock.specifiers).filter((s) => !allowed.has(packageName(s)));
  assert.deepEqual(
    stray,
    [],
    `deno.lock lists ${stray.join(", ")}, which the server does not import, so ` +
      "`deno task start` would download them. A test run outside `deno task test` wrote them: " +
      "restore the file with `git checkout deno.lock` and run tests with `deno task test <files>`.",
  );
  const unused = Object.keys(lock.npm).filter((k) => !reachable(lock).has(k));
  assert.deepEqual(unused, [], `deno.lock keeps packages nothing needs: ${unused.join(", ")}`);
});

Deno.test("deno.dev.lock resolves the server's packages to the versions deno.lock has", async () => {
  const lock: Lockfile = await readJson("deno.lock");
  const dev: Lockfile = await readJson("deno.dev.lock");
  for (const [specifier, version] of Object.entries(lock.specifiers)) {
    assert.equal(
      dev.specifiers[specifier],
      version,
      `${specifier} is ${version} in deno.lock but ${
        dev.specifiers[specifier]
      } in deno.dev.lock: tests must run what the server runs`,
    );
  }
  for (const key of reachable(lock)) {
    assert.deepEqual(dev.npm[key], lock.npm[key], `${key} differs between the lockfiles`);
  }
});
