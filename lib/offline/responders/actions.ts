/** @module Offline responder for the "actions" prompt: 15-minute actions placed by word overlap, with a keyword emoji. */
import type { ActionsInput, ActionsOutput } from "../../../src/prompts/actions.ts";
import { clockMinutes } from "../../../src/time/time_of_day.ts";
import { asSteps, bestOverlap, emojiFor, slices } from "./_plan_spans.ts";

function areaNumber(input: ActionsInput, area: string | null): number | null {
  if (area === null) return null;
  const prefix = area.toLowerCase();
  const i = input.locations.findIndex((l) =>
    l.path.toLowerCase() === prefix || l.path.toLowerCase().startsWith(`${prefix}:`)
  );
  return i === -1 ? null : i + 1;
}

/**
 * Cuts the chunk into 15-minute actions from its start (a last one under 5 minutes joins the one
 * before): setting up, the chunk's activity itself, and a short tidy-up at the end. Each action's
 * location is the listed one sharing the most words with the action, its chunk and item, else the
 * first in the planned area, else in the current area, else the first listed.
 */
export function answerActions(input: unknown): ActionsOutput {
  const i = input as ActionsInput;
  const base = i.chunk.description.replace(/\s*\(part \d+ of \d+\)$/, "");
  const parts = slices(clockMinutes(i.chunk.start), clockMinutes(i.chunk.end), 15);
  const paths = i.locations.map((l) => l.path);
  const fallback = areaNumber(i, i.plannedArea) ?? areaNumber(i, i.currentArea) ?? 1;
  const steps = asSteps(parts.map(([start, end], n) => ({
    start,
    end,
    description: (n === 0 && parts.length > 1
      ? `get set up to ${base}`
      : n === parts.length - 1 && parts.length > 2
      ? "pause briefly and tidy up"
      : base).slice(0, 200),
  })));
  return {
    actions: steps.map((step) => ({
      ...step,
      location: bestOverlap(`${step.description} ${base} ${i.item}`, paths) ?? fallback,
      emoji: emojiFor(`${step.description} ${base}`),
    })),
  };
}
