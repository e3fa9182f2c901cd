/**
 * @module Actions: the game's verbs an agent may ask the game to carry out (`give_item
 * {item}`), registered per world, and the checks an action an agent chose passes before the game
 * ever sees it: a registered name, arguments valid against its JSON Schema.
 */
import { z } from "zod";
import { SimulacraError } from "../errors.ts";
import { argumentsValidator, ParameterSchema, parameterSchemaProblem } from "./json_schema.ts";

/** Most actions a world registers. */
export const MAX_ACTIONS = 64;
/** Longest action description, in characters. */
export const MAX_ACTION_DESCRIPTION = 500;
/** Largest parameter schema, in characters of JSON. */
export const MAX_PARAMETERS_CHARS = 4000;
/** Most actions one reply or one planned step may carry. */
export const MAX_ACTIONS_PER_TURN = 3;
/** Longest arguments text the model may give one action. */
const MAX_ARGUMENTS_CHARS = 4000;

/** An action's name: a lower-case identifier, as games and tool-calling models name verbs. */
export const ActionName = z.string().regex(
  /^[a-z][a-z0-9_]{0,63}$/,
  "Action names are 1-64 characters: a lower-case letter, then lower-case letters, digits or '_'",
).meta({ example: "give_item" });

/** One action as a game registers it. Limits past the shape are checked by `checkActions` (422). */
export const GameAction = z
  .strictObject({
    name: ActionName,
    description: z.string().trim().min(1).meta({
      description:
        `What the action does, for the agent to decide when to use it; at most ${MAX_ACTION_DESCRIPTION} characters`,
      example: "Hand an item from the shop to the customer",
    }),
    parameters: z.record(z.string(), z.unknown()).meta({
      description:
        'A JSON Schema of "type": "object" describing the arguments (types, properties, required, enum, bounds, items, anyOf; no $ref)',
      example: {
        type: "object",
        properties: { item: { type: "string", description: "The item to hand over" } },
        required: ["item"],
      },
    }),
  })
  .meta({ id: "GameAction" });
export type GameAction = z.infer<typeof GameAction>;

/** The body of `PUT /v1/worlds/{world}/actions`: the world's whole list of actions. */
export const GameActionList = z.array(GameAction).max(MAX_ACTIONS).meta({
  id: "GameActionList",
  example: [{
    name: "give_item",
    description: "Hand an item from the shop to the customer",
    parameters: {
      type: "object",
      properties: { item: { type: "string" } },
      required: ["item"],
      additionalProperties: false,
    },
  }],
});

/** An action the agent asks the game to carry out. */
export const ActionCall = z
  .object({
    id: z.string().meta({
      description:
        "The action's id: report its outcome with POST …/perceive and this id as the observation's eventId",
      example: "act_01",
    }),
    name: ActionName,
    arguments: z.record(z.string(), z.unknown()).meta({ example: { item: "lantern" } }),
  })
  .meta({ id: "ActionCall" });
export type ActionCall = z.infer<typeof ActionCall>;

/** An action the model chose that never reaches the game, and why. */
export const DroppedAction = z
  .object({
    name: z.string(),
    arguments: z.unknown().optional(),
    reason: z.string().meta({
      example: 'unknown action "fly": no action of that name is registered',
    }),
  })
  .meta({ id: "DroppedAction" });
export type DroppedAction = z.infer<typeof DroppedAction>;

/** An action as the model proposed it: a name and its arguments as JSON text. */
export interface ProposedAction {
  name: string;
  arguments: string;
}

function refuse(index: number, message: string): SimulacraError {
  return new SimulacraError("unprocessable", `Cannot store action ${index}: ${message}`, {
    details: { index },
  });
}

/**
 * Checks a list of actions past its shape: unique names, descriptions and schemas within their
 * sizes, each `parameters` a supported JSON Schema of an object.
 * @throws `unprocessable` naming the first bad item (`details.index`).
 */
export function checkActions(actions: readonly GameAction[]): void {
  const seen = new Map<string, number>();
  actions.forEach((action, index) => {
    const first = seen.get(action.name);
    if (first !== undefined) {
      throw refuse(index, `its name "${action.name}" is already used by action ${first}`);
    }
    seen.set(action.name, index);
    if (action.description.length > MAX_ACTION_DESCRIPTION) {
      throw refuse(index, `its description is over ${MAX_ACTION_DESCRIPTION} characters`);
    }
    if (JSON.stringify(action.parameters).length > MAX_PARAMETERS_CHARS) {
      throw refuse(index, `its parameters schema is over ${MAX_PARAMETERS_CHARS} characters`);
    }
    const problem = parameterSchemaProblem(action.parameters);
    if (problem !== null) throw refuse(index, `its parameters ${problem}`);
  });
}

/** What became of the actions the model proposed. */
export interface CheckedActions {
  actions: ActionCall[];
  dropped: DroppedAction[];
}

/**
 * Keeps the proposed actions the game can run: a registered name and arguments (JSON text of an
 * object) valid against its schema, at most {@linkcode MAX_ACTIONS_PER_TURN}; every other one is
 * dropped with its reason. `ids` mints each kept action's id.
 */
export function checkProposedActions(
  registered: readonly GameAction[],
  proposed: readonly ProposedAction[],
  options: { ids: () => string },
): CheckedActions {
  const byName = new Map(registered.map((a) => [a.name, a]));
  const actions: ActionCall[] = [];
  const dropped: DroppedAction[] = [];
  for (const p of proposed) {
    const drop = (reason: string, args?: unknown) =>
      dropped.push({
        name: p.name.slice(0, 100),
        ...(args === undefined ? {} : { arguments: args }),
        reason,
      });
    const action = byName.get(p.name);
    if (action === undefined) {
      drop(`unknown action "${p.name.slice(0, 100)}": no action of that name is registered`);
      continue;
    }
    if (p.arguments.length > MAX_ARGUMENTS_CHARS) {
      drop(`its arguments are over ${MAX_ARGUMENTS_CHARS} characters`);
      continue;
    }
    let args: unknown;
    try {
      args = JSON.parse(p.arguments.trim() === "" ? "{}" : p.arguments);
    } catch {
      drop("its arguments are not valid JSON", p.arguments);
      continue;
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      drop("its arguments are not a JSON object", args);
      continue;
    }
    const checked = argumentsValidator(action.parameters as ParameterSchema).safeParse(args);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const at = issue.path.length > 0 ? ` at "${issue.path.join(".")}"` : "";
      drop(`its arguments do not match the schema${at}: ${issue.message}`, args);
      continue;
    }
    if (actions.length >= MAX_ACTIONS_PER_TURN) {
      drop(`more than ${MAX_ACTIONS_PER_TURN} actions in one turn`, args);
      continue;
    }
    actions.push({ id: options.ids(), name: p.name, arguments: args as ActionCall["arguments"] });
  }
  return { actions, dropped };
}
