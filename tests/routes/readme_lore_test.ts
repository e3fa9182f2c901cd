/**
 * README "Relationships, mood and lore": its curl calls, run verbatim by bash against `main.ts` in
 * a child process (offline model, fresh data dir), answer what the comments beside them say.
 */
import assert from "node:assert/strict";
import { startMain } from "../_helpers/main_process.ts";

const README = await Deno.readTextFile(new URL("../../README.md", import.meta.url));

/** The shell block of the section, as written. */
function sectionScript(): string {
  const section = README.slice(README.indexOf("## Relationships, mood and lore"));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, "the section has a shell block");
  return block[1];
}

const hasCurl = (() => {
  try {
    return new Deno.Command("curl", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

Deno.test({
  name:
    "README: the guard's curl calls work verbatim: a secret behind minTrust opens after a favour",
  ignore: !hasCurl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "simulacra-readme-" });
    const server = await startMain({ SIMULACRA_DATA_DIR: dataDir });
    try {
      const script = sectionScript().replaceAll("localhost:8000", server.url);
      const out = await new Deno.Command("bash", { args: ["-euc", script], stdout: "piped" })
        .output();
      assert.ok(out.success, "every call ran");
      const text = new TextDecoder().decode(out.stdout);
      const used = [...text.matchAll(/"used":(\{"lore":\[.*?\]\})/g)].map((m) => JSON.parse(m[1]));
      assert.deepEqual(used, [
        { lore: [{ id: "mill", matched: "mill" }] },
        { lore: [{ id: "mill", matched: "mill" }, { id: "mill-tunnel", matched: "mill" }] },
      ]);
      const bond = JSON.parse(/(\{"with":"the player".*?\})\n?\{/s.exec(text)![1]);
      assert.equal(bond.kind, "speaker");
      assert.equal(bond.familiarity, 2);
      assert.equal(bond.trust, 0.325);
      assert.match(text, /"mood":\{"valence":0\.319,"arousal":0\.428,"label":"calm"/);
    } finally {
      await server.kill();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
