/** @module How long a tick's working records are kept. */

/**
 * How long a tick's working records (each unit's step result, each pair's decision) are kept.
 * They matter only while the tick is open: at most its deadline (5 minutes by default) and the
 * 20 s until a close check comes round. A day also covers a server that stopped with a tick
 * open and came back hours later (its queue then delivers the close). A tick left open longer
 * (its close messages lost and nobody ticking the world) closes with the units whose results
 * expired recorded as failed. Tick markers have no time to live: a repeated tick id answers
 * its result (README, "How time moves").
 */
export const TICK_RECORD_TTL_MS = 24 * 60 * 60 * 1000;
