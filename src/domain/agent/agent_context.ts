/**
 * @module The world and agent an operation acts for, passed as one argument: most of cognition
 * needs both, and often the game time it acts at, which long positional lists used to spell out.
 */
import type { GameTime } from "../time/mod.ts";
import type { World } from "../world/mod.ts";
import type { Agent } from "./agent.ts";

/** The world and the agent an operation acts for. */
export interface AgentContext {
  world: World;
  agent: Agent;
}
/** An {@linkcode AgentContext} at a game time. */
export interface AgentMoment extends AgentContext {
  at: GameTime;
}
