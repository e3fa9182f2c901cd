/**
 * README "Hooking a game in" works verbatim: its shell block, run by bash against `main.ts` (the
 * offline model), gets the shopkeeper's give_item action, stores the outcome under its id, plans
 * for the goal, re-plans for the storm and marks the goal done.
 */
import assert from "node:assert/strict";
import { startMain } from "./_helpers/main_process.ts";

/** The README section's shell block, aimed at `url`. */
async function sectionScript(url: string): Promise<string> {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const section = readme.split("\n## Hooking a game in\n")[1]?.split("\n## ")[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "the section has a shell block");
  return block.replaceAll("localhost:8000", url.replace("http://", ""));
}

Deno.test("README: the game hooks' curl calls work verbatim", async () => {
  const dir = await Deno.makeTempDir({ prefix: "simulacra-readme-" });
  const server = await startMain({ SIMULACRA_DATA_DIR: dir });
  try {
    // Each answer on a line of its own, to read them back.
    const script = `curl() { command curl "$@"; echo; }\nset -e\n${await sectionScript(
      server.url,
    )}`;
    const run = await new Deno.Command("bash", { args: ["-c", script], stdout: "piped" }).output();
    assert.equal(run.code, 0);
    const answers = new TextDecoder().decode(run.stdout).split("\n").filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    const reply = answers.find((a) => a.reply !== undefined);
    assert.equal(reply.actions[0].name, "give_item");
    assert.deepEqual(reply.actions[0].arguments, { item: "lantern" });
    const perceived = answers.find((a) => a.outcomes !== undefined);
    assert.deepEqual(perceived.outcomes, ["created"]);
    assert.equal(perceived.memories[0].eventId, reply.actions[0].id);
    const plan = answers.find((a) => a.items !== undefined);
    assert.ok(plan.items.some((i: { goalId?: string }) => i.goalId === "festival"));
    const storm = answers.find((a) => a.deliveries !== undefined);
    assert.equal(storm.deliveries[0].reaction, "react");
    const done = answers.at(-1);
    assert.equal(done.status, "done");
  } finally {
    await server.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
