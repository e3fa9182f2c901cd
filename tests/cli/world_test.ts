import assert from "node:assert/strict";
import { join } from "node:path";
import { OFFLINE_ENV } from "../_helpers/offline_env.ts";
import { hasRedisServer, startLocalUpstash } from "../_helpers/backends.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function task(script: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    cwd: ROOT,
    env: { ...OFFLINE_ENV, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function memoryLines(text: string): string[] {
  return text.trimEnd().split("\n").filter((l) => l.includes('"type":"memory"')).map((l) => {
    const { memory } = JSON.parse(l);
    return `${memory.agentId}/${memory.id}/${memory.description}/${memory.lastAccessedAt}`;
  }).sort();
}

Deno.test({
  name:
    "simulate --save, then world import/export move the town embedded → Upstash through the CLI",
  ignore: !(await hasRedisServer()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "simulacra-world-cli-" });
    const upstash = await startLocalUpstash("cli-token");
    const upstashEnv = upstash.env;
    const embeddedEnv = { SIMULACRA_DATA_DIR: join(dir, "data") };
    try {
      const saved = join(dir, "town.ndjson");
      const sim = await task("cli/simulate.ts", ["--hours", "1", "--save", saved], {});
      assert.equal(sim.code, 0, sim.stderr);
      assert.match(sim.stderr, /Saved world "[^"]+" to .*town\.ndjson/);
      const savedText = await Deno.readTextFile(saved);
      const header = JSON.parse(savedText.split("\n")[0]);
      assert.equal(header.format, "simulacra.world");
      assert.equal(header.counts.agents, 25);
      const world = header.worldId as string;

      const into = await task("cli/world.ts", ["import", saved], embeddedEnv);
      assert.equal(into.code, 0, into.stderr);
      assert.match(into.stderr, /Imported world ".+": 25 agents, \d+ memories/);

      const fromEmbedded = await task("cli/world.ts", ["export", world, "--events"], embeddedEnv);
      assert.equal(fromEmbedded.code, 0, fromEmbedded.stderr);
      const exported = join(dir, "export.ndjson");
      await Deno.writeTextFile(exported, fromEmbedded.stdout);
      assert.deepEqual(memoryLines(fromEmbedded.stdout), memoryLines(savedText));

      const toUpstash = await task("cli/world.ts", ["import", exported], upstashEnv);
      assert.equal(toUpstash.code, 0, toUpstash.stderr);
      const fromUpstash = await task("cli/world.ts", ["export", world, "--events"], upstashEnv);
      assert.equal(fromUpstash.code, 0, fromUpstash.stderr);
      assert.deepEqual(memoryLines(fromUpstash.stdout), memoryLines(savedText));
      const events = (t: string) =>
        t.split("\n").filter((l) => l.includes('"type":"event"')).map((l) => JSON.parse(l));
      assert.deepEqual(events(fromUpstash.stdout), events(fromEmbedded.stdout));

      const twice = await task("cli/world.ts", ["import", exported], upstashEnv);
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /exists/);
      const fork = await task("cli/world.ts", ["import", exported, "--id", "fork"], upstashEnv);
      assert.equal(fork.code, 0, fork.stderr);

      const bad = await task("cli/world.ts", ["frobnicate"], embeddedEnv);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /Usage: deno task world/);
    } finally {
      await upstash.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
