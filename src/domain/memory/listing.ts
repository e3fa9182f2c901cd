/** @module Reading the memory stream: pages by kind and time, and one memory with its evidence. */
import { z } from "zod";
import { MemoryId } from "../ids.ts";
import { MemoryKind, MemoryRecord } from "./memory_record.ts";

/** Query of `GET …/memories`. */
export const ListMemoriesQuery = z
  .strictObject({
    kind: MemoryKind.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(500).optional(),
    order: z.enum(["asc", "desc"]).default("desc"),
    archived: z.enum(["true", "false"]).optional().meta({
      description:
        "true: the memories moved out of the live set (archived under the memory budget, or merged into another by consolidation) instead of the live ones",
    }),
  });
export type ListMemoriesQuery = z.infer<typeof ListMemoriesQuery>;
/** A page of memories. */
export const MemoryPageBody = z
  .object({ memories: z.array(MemoryRecord), next: z.string().nullable() })
  .meta({ id: "MemoryPage" });
export type MemoryPageBody = z.infer<typeof MemoryPageBody>;
/** One memory; a reflection carries every memory its evidence rests on. */
export const MemoryWithEvidence = MemoryRecord.extend({
  evidenceChain: z.array(MemoryRecord).optional().meta({
    description: "For reflections: the evidence, and its evidence, breadth first",
  }),
  forgottenEvidence: z.array(MemoryId).optional().meta({
    description:
      "For reflections: evidence ids that were forgotten (DELETE …/memories/{memory}); the reflection keeps its text",
  }),
}).meta({ id: "MemoryWithEvidence" });
export type MemoryWithEvidence = z.infer<typeof MemoryWithEvidence>;
