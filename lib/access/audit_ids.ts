/**
 * @module Audit entry ids: fixed-width wall-clock ms, a per-process sequence, then randomness,
 * so ids sort by time (and by order of writing within this process) and never collide.
 */

let lastMs = 0;
let sequence = 0;

/** A new id for an entry written at `ms`; later calls in this process sort after it. */
export function auditEntryId(ms: number): string {
  if (ms > lastMs) {
    lastMs = Math.floor(ms);
    sequence = 0;
  } else sequence++;
  const random = crypto.getRandomValues(new Uint8Array(4));
  const hex = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${auditCutoffId(lastMs)}-${sequence.toString(36).padStart(4, "0")}${hex}`;
}

/** The id prefix of `ms`: every entry written at or after `ms` sorts at or after it. */
export function auditCutoffId(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString().padStart(15, "0");
}
