/** @module Runs a CLI entry (cli/*.ts) in a subprocess, offline, from the repository root. */
import { OFFLINE_ENV } from "./offline_env.ts";

/** The repository root, so the subprocess finds deno.json (KV is unstable) wherever tests run. */
const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Runs `cli/<script>` with `args` in the offline environment plus `options.env`; its exit code
 * and output.
 */
export async function runCli(
  script: string,
  args: readonly string[],
  options: { env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `cli/${script}`, ...args],
    cwd: ROOT,
    env: { ...OFFLINE_ENV, ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}
