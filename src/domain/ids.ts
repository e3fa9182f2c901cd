/** @module Branded identifiers, parsed where a request enters. */
import { z } from "zod";

const idPattern = /^[A-Za-z0-9_-]{1,64}$/;
const idMessage = "Ids are 1-64 characters of letters, digits, '_' or '-'";

/** A world's id. */
export const WorldId = z.string().regex(idPattern, idMessage).brand<"WorldId">();
export type WorldId = z.infer<typeof WorldId>;

/** An agent's id, unique within its world. */
export const AgentId = z.string().regex(idPattern, idMessage).brand<"AgentId">();
export type AgentId = z.infer<typeof AgentId>;

/** A memory's id, unique within its agent. */
export const MemoryId = z.string().regex(idPattern, idMessage).brand<"MemoryId">();
export type MemoryId = z.infer<typeof MemoryId>;

/** The scope every per-agent store call takes first, so worlds and agents never mix. */
export interface AgentScope {
  readonly worldId: WorldId;
  readonly agentId: AgentId;
}

/** Mints new ids; the core never draws random numbers itself. */
export interface IdSource {
  /** Returns a new URL-safe id that sorts after every id this source returned before. */
  next(prefix: string): string;
}
