/** @module The bundled MRBench-style suite's data files, as written (validated by `bundledMrbench`). */
import personas from "./personas.json" with { type: "json" };
import probes from "./probes.json" with { type: "json" };

/** The suite's raw data: characters and probes. */
export const MRBENCH_DATA: { personas: unknown[]; probes: unknown[] } = {
  personas: personas.personas,
  probes: probes.probes,
};
