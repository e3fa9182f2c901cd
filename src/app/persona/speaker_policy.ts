/**
 * @module Who a caller may speak as in `respond`: a key's fixed speaker always wins, names that
 * would impersonate (an agent of the world, "system", or anything that "told me") are refused
 * unless the key may `simulate`, and the inner voice needs `direct`. Names are compared as they
 * look ({@linkcode foldName}): case, spacing, punctuation, compatibility forms, invisible
 * characters and confusable letters ("Bоb" with a Cyrillic о) make no difference.
 */
import { listAgents } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import {
  allows,
  boundPlayer,
  foldName,
  type Principal,
  SimulacraError,
  type Skeleton,
  type WorldId,
} from "../../domain/mod.ts";
import type { RespondInput } from "./respond_schema.ts";

/**
 * The input respond should run with for this principal.
 * @throws `forbidden` (inner voice without `direct`), `unprocessable` (a refused speaker name).
 */
export async function applySpeakerPolicy(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  options: {
    principal: Principal;
    input: RespondInput;
    /** The confusable skeleton names are compared by (lib/confusables.ts). */
    skeleton: Skeleton;
  },
): Promise<RespondInput> {
  const { principal } = options;
  let input = options.input;
  if (input.mode === "inner_voice") {
    if (!allows(principal, "direct")) {
      throw new SimulacraError(
        "forbidden",
        'Cannot speak as the agent\'s inner voice: this key lacks the "direct" permission',
        { details: { missing: "direct" } },
      );
    }
    return input;
  }
  const player = boundPlayer(principal);
  if (player !== undefined) {
    // A key bound to a player speaks as that player, whatever the request names.
    const agent = (await listAgents(deps, worldId)).find((a) => a.id === player);
    if (agent === undefined) {
      throw new SimulacraError(
        "forbidden",
        `Cannot speak as player "${player}" in world "${worldId}": the key's player is not there`,
      );
    }
    return { ...input, speaker: { name: agent.name, description: input.speaker?.description } };
  }
  if (principal.kind === "key" && principal.key.speaker !== undefined) {
    input = {
      ...input,
      speaker: { name: principal.key.speaker, description: input.speaker?.description },
    };
  }
  const name = input.speaker?.name;
  if (name === undefined || allows(principal, "simulate")) return input;
  const reason = await refusedSpeaker(deps, worldId, { name, skeleton: options.skeleton });
  if (reason) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot speak as "${name.slice(0, 100)}": ${reason}; only a key with "simulate" may`,
      { details: { field: "speaker.name" } },
    );
  }
  return input;
}

/** Why a speaker name would impersonate someone, or null when it is fine. */
async function refusedSpeaker(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  { name, skeleton }: { name: string; skeleton: Skeleton },
): Promise<string | null> {
  const fold = (text: string) => foldName(text, skeleton);
  const folded = fold(name);
  if (folded === fold("system")) return 'the name "system" is reserved';
  if (folded.includes(fold("told me"))) return 'a speaker name cannot contain "told me"';
  const agents = await listAgents(deps, worldId);
  if (agents.some((a) => fold(a.name) === folded || fold(a.id) === folded)) {
    return "it is the name of an agent of this world";
  }
  return null;
}
