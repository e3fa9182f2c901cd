/**
 * @module A world's clock and settings as they change: `PATCH` of name, tick length, pause and
 * settings, and the compare-and-set that moves game time forward (Generative Agents §5).
 */
import { z } from "zod";
import { TickMinutes } from "../time/mod.ts";
import { ClockInput, WorldSettings } from "./world.ts";

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
/** Why a world stopped or started again, as its `world.paused` / `world.resumed` event says. */
export interface PauseReason {
  reason: "request" | "idle";
  message: string;
  [field: string]: unknown;
}
