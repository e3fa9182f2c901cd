/**
 * @module A world's clock and settings as they change: `PATCH` of name, tick length, pause and
 * settings, and the compare-and-set that moves game time forward (Generative Agents §5).
 */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import { updateDocument } from "../ports/update_document.ts";
import { ConflictError } from "../errors.ts";
import type { WorldId } from "../ids.ts";
import type { Versioned } from "../ports/document_store.ts";
import { type ClockMove, type TickClock, TickMinutes } from "../engine/tick_clock.ts";
import {
  type Clock,
  ClockInput,
  withDefaults,
  type World,
  worldKey,
  worldNotFound,
  WorldSettings,
} from "./world.ts";

/**
 * A tick id: the caller's key that makes a tick idempotent. Letters, digits and `_ . : -`, so
 * cron ids such as `cron:smallville:2026-11-22T10:00:00.000Z` fit.
 */
export const TickId = z
  .string()
  .regex(
    /^[A-Za-z0-9_.:-]{1,200}$/,
    "Tick ids are 1-200 characters of letters, digits, '_', '.', ':' or '-'",
  )
  .meta({ example: "tick-0001" });

/** The body of `POST /v1/worlds/{world}/tick`. */
export const TickInput = z
  .strictObject({
    minutes: TickMinutes.optional().meta({
      description: "Game minutes to advance (1-1440); default: the world's minutesPerTick",
    }),
    tickId: TickId.refine(
      (id) => !id.startsWith("cron:"),
      'Tick ids starting with "cron:" are reserved for the scheduler',
    ).optional().meta({
      description:
        "Your id for this tick: sending it again returns the first result and does not advance again; minted when absent",
    }),
  })
  .meta({ id: "TickInput", example: { minutes: 10, tickId: "tick-0001" } });
export type TickInput = z.infer<typeof TickInput>;

/** Every settings field optional and without its default, so a patch names only what changes. */
const SettingsPatch = z.strictObject(
  Object.fromEntries(
    Object.entries(WorldSettings.shape).map(([name, field]) => {
      const inner = field instanceof z.ZodDefault ? field.unwrap() as z.ZodType : field;
      return [name, inner.optional().meta(field.meta() ?? {})];
    }),
  ),
) as unknown as z.ZodType<Partial<WorldSettings>>;

/** The body of `PATCH /v1/worlds/{world}`. */
export const UpdateWorldInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    minutesPerTick: TickMinutes.optional(),
    paused: z.boolean().optional().meta({
      description: "Same as clock.paused (kept for earlier clients)",
    }),
    clock: ClockInput.optional().meta({
      description:
        'Change who moves the time (`mode`) or pause/resume the scheduler (`paused`); e.g. `{"mode": "manual"}`',
    }),
    settings: SettingsPatch.optional().meta({
      description: "Only the settings named change; the others keep their values",
    }),
  })
  .meta({ id: "UpdateWorldInput", example: { paused: true } });
export type UpdateWorldInput = z.infer<typeof UpdateWorldInput>;

const ATTEMPTS = 8;

/**
 * The world document with its version, for compare-and-set.
 * @throws `world_not_found`
 */
export async function loadWorldDoc(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<Versioned<World>> {
  const doc = await deps.storage.documents.get<World>(worldKey(worldId));
  if (!doc) throw worldNotFound(worldId);
  return { ...doc, value: withDefaults(doc.value) };
}

/** Why a world stopped or started again, as its `world.paused` / `world.resumed` event says. */
export interface PauseReason {
  reason: "request" | "idle";
  message: string;
  [field: string]: unknown;
}

/**
 * Changes a world's name, tick length, clock mode, pause flag or settings (merged field by
 * field) with a version-checked replace, so it never undoes a tick that moved the clock
 * meanwhile. The game time itself only moves by ticks. A change of the pause flag is logged as
 * a `world.paused` or `world.resumed` event (`why` says by what; default: a request).
 * @throws `world_not_found`, `invalid_request` when the merged settings are invalid,
 * `conflict` when concurrent writes keep winning.
 */
export async function updateWorld(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  input: UpdateWorldInput,
  options: { why?: PauseReason } = {},
): Promise<World> {
  let wasPaused = false;
  const next = (await updateDocument<World>(deps.storage.documents, worldKey(worldId), (raw) => {
    if (raw === null) throw worldNotFound(worldId);
    const current = withDefaults(raw);
    wasPaused = current.clock.paused;
    return {
      ...current,
      name: input.name ?? current.name,
      clock: {
        ...current.clock,
        minutesPerTick: input.minutesPerTick ?? current.clock.minutesPerTick,
        mode: input.clock?.mode ?? current.clock.mode,
        paused: input.clock?.paused ?? input.paused ?? current.clock.paused,
      },
      settings: WorldSettings.parse({ ...current.settings, ...input.settings }),
    };
  }, {
    attempts: ATTEMPTS,
    read: await loadWorldDoc(deps, worldId),
    create: false,
    conflict: `Cannot update world "${worldId}": other writes kept changing it, retry shortly`,
  }))!;
  if (next.clock.paused !== wasPaused) {
    await deps.storage.events.append(worldId, [{
      type: next.clock.paused ? "world.paused" : "world.resumed",
      at: next.clock.now,
      ...(options.why ?? {
        reason: "request",
        message: next.clock.paused
          ? "Paused by a request: the scheduler leaves it until it is resumed"
          : "Resumed by a request",
      }),
    }]);
  }
  return next;
}

/**
 * Moves the clock from `from` to `to` with a compare-and-set on the world document. A write
 * that lost only to a change of name, pause or settings is retried on the fresh document; the
 * clock itself must still read `from`.
 * @returns the clock after the move.
 * @throws `world_not_found`; `conflict` when the clock no longer reads `from` (another tick
 * moved it) or writes keep winning.
 */
export async function advanceClock(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  move: ClockMove,
): Promise<Clock> {
  const { from, to } = move;
  const world = await updateDocument<World>(
    deps.storage.documents,
    worldKey(worldId),
    (current) => {
      if (current === null) throw worldNotFound(worldId);
      if (current.clock.now !== from) {
        throw new ConflictError(
          `Cannot advance the clock of world "${worldId}" from "${from}": it reads "${current.clock.now}" now, another tick moved it`,
        );
      }
      return { ...current, clock: { ...current.clock, now: to } };
    },
    {
      attempts: ATTEMPTS,
      read: await loadWorldDoc(deps, worldId),
      create: false,
      fence: move.fence,
      conflict:
        `Cannot advance the clock of world "${worldId}": other writes kept changing it, retry the tick`,
    },
  );
  return world!.clock;
}

/** The engine's clock port for worlds: reads the world document and moves its clock. */
export const worldTickClock: TickClock<World> = {
  load: async (deps, id) => (await loadWorldDoc(deps, id as WorldId)).value,
  advance: (deps, id, move) => advanceClock(deps, id as WorldId, move),
};
