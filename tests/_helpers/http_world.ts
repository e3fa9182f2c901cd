/** @module A world with agents made over HTTP, the set-up most route tests start from. */
import assert from "node:assert/strict";
import { call, type RequestTarget } from "./http_call.ts";

/** An agent's creation body. */
export type AgentBody = { id: string } & Record<string, unknown>;

/**
 * Creates the world "Smallville" at 2023-02-13 07:00 with `settings`, and `agents` in it;
 * returns the world's path.
 */
export async function worldWithAgents(
  app: RequestTarget,
  agents: AgentBody[],
  settings: Record<string, unknown> = {},
): Promise<string> {
  const world = await call(app, "POST", "/v1/worlds", {
    name: "Smallville",
    startTime: "2023-02-13T07:00:00",
    settings,
  });
  assert.equal(world.status, 201, JSON.stringify(world.body));
  const w = `/v1/worlds/${world.body.id}`;
  for (const agent of agents) {
    const made = await call(app, "POST", `${w}/agents`, agent);
    assert.equal(made.status, 201, JSON.stringify(made.body));
  }
  return w;
}

/** {@linkcode worldWithAgents} with one agent: the paths of the world (`w`) and the agent (`a`). */
export async function worldWithAgent(
  app: RequestTarget,
  agent: AgentBody,
  settings: Record<string, unknown> = {},
): Promise<{ w: string; a: string }> {
  const w = await worldWithAgents(app, [agent], settings);
  return { w, a: `${w}/agents/${agent.id}` };
}
