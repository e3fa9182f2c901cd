/** @module The wire shape of tick messages, checked when a queue delivers one. */
import { z } from "zod";
import type { TickMessage } from "./tick_queue.ts";

const Ids = { worldId: z.string().min(1), tickId: z.string().min(1) };

/** A tick message as delivered; anything else on the queue is not ours. */
export const TickMessageSchema: z.ZodType<TickMessage> = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("step"),
    ...Ids,
    group: z.number().int().min(0),
    attempt: z.number().int().min(1),
  }),
  z.object({ kind: z.literal("close"), ...Ids }),
]);
