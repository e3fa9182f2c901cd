/**
 * @module The id of a tick's conversation, and of each of its chat memories: what lets a retried
 * step find the conversation it held and write each memory of it once.
 */

/**
 * The id of the conversation the pair of `deciderId` may hold in a tick: the same on every try
 * of the tick's step, so a try that finds it stored finishes it instead of holding a second
 * one. The tick id (up to 200 characters of `A-Za-z0-9_.:-`) is hashed, so the id fits what a
 * conversation id may be (`A-Za-z0-9_-`, at most 128); agent ids are at most 64 of those.
 */
export function tickConversationId(tickId: string, deciderId: string): string {
  return `ct_${fnv1a64(tickId)}_${deciderId}`;
}

/**
 * The id of the memory a participant keeps of line `line` of conversation `conversationId`: the
 * same in each participant's stream (ids are unique per agent) and on every try, so a retry
 * finds what an earlier try wrote. The conversation id is hashed to fit a memory id (at most 64).
 */
export function chatMemoryId(conversationId: string, line: number): string {
  return `mc_${fnv1a64(conversationId)}_${String(line).padStart(3, "0")}`;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/** 64-bit FNV-1a of the string's UTF-16 code units, as 16 hex digits. */
function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash = ((hash ^ BigInt(text.charCodeAt(i))) * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, "0");
}
