/** @module Private to cli/: `deno task eval believability` (not yet). */
import type { EvalIo } from "./_eval_io.ts";

/** Runs the believability command. */
export function believabilityCommand(
  _args: readonly string[],
  _env: Record<string, string>,
  io: EvalIo,
): Promise<number> {
  io.err("believability: not built yet\n");
  return Promise.resolve(1);
}
