/**
 * @module The bundled MRBench-style suite (our own English items, not the paper's data): ten
 * characters, four from the example town and six invented, and twenty probes per ability with
 * gold or forbidden answers where the metric needs one (Memory-Driven Role-Playing §3.4).
 */
import { z } from "zod";
import { GameTime, Persona } from "../domain/mod.ts";
import { Probe } from "../app/mod.ts";
import { MRBENCH_DATA } from "./mrbench/mod.ts";

/** One character of the suite. */
export const MrbenchCharacter = z.strictObject({
  id: z.string(),
  name: z.string(),
  source: z.enum(["example town", "invented"]),
  profile: z.string(),
  now: GameTime,
  home: z.string().optional(),
  workplace: z.string().optional(),
  persona: Persona,
  memories: z.array(z.string()),
});
export type MrbenchCharacter = z.infer<typeof MrbenchCharacter>;

/** One probe of the suite, addressed to a character by id. */
export const MrbenchProbe = Probe.extend({ persona: z.string() });
export type MrbenchProbe = z.infer<typeof MrbenchProbe>;

/** The suite: characters and probes. */
export const MrbenchSuite = z.object({
  personas: z.array(MrbenchCharacter).min(1),
  probes: z.array(MrbenchProbe).min(1),
}).superRefine((suite, ctx) => {
  const ids = new Set(suite.personas.map((p) => p.id));
  suite.probes.forEach((probe, i) => {
    if (!ids.has(probe.persona)) {
      ctx.addIssue({
        code: "custom",
        path: ["probes", i, "persona"],
        message: `no character "${probe.persona}"`,
      });
    }
  });
});
export type MrbenchSuite = z.infer<typeof MrbenchSuite>;

/** The bundled suite, validated. */
export function bundledMrbench(): MrbenchSuite {
  return MrbenchSuite.parse(MRBENCH_DATA);
}

/** The suite restricted to some characters (by id), in the suite's order. */
export function mrbenchSubset(suite: MrbenchSuite, ids: readonly string[]): MrbenchSuite {
  const keep = new Set(ids);
  return {
    personas: suite.personas.filter((p) => keep.has(p.id)),
    probes: suite.probes.filter((p) => keep.has(p.persona)),
  };
}
