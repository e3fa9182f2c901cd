/** @module Private to lib/: the judge model's configuration (SIMULACRA_JUDGE_*), as the main model's is read. */
import type { Env } from "./_config_env.ts";

/** The judge: the offline rule-based one, or a model on an OpenAI-compatible server. */
export type JudgeConfig =
  | { mode: "offline" }
  | { mode: "openai"; apiKey: string; baseURL?: string; model: string };

/**
 * SIMULACRA_JUDGE_MODEL names the judge; its endpoint is SIMULACRA_JUDGE_BASE_URL, else the main
 * model's OPENAI_BASE_URL, else OpenAI; its key SIMULACRA_JUDGE_API_KEY, else OPENAI_API_KEY.
 * A judge endpoint or key without a judge model is a mistake worth reporting.
 */
export function judgeConfig(e: Env): { value: JudgeConfig; problems: string[] } {
  const model = e.SIMULACRA_JUDGE_MODEL;
  if (model === undefined) {
    const stray = (["SIMULACRA_JUDGE_BASE_URL", "SIMULACRA_JUDGE_API_KEY"] as const)
      .filter((name) => e[name] !== undefined);
    return {
      value: { mode: "offline" },
      problems: stray.map((name) =>
        `${name} is set but SIMULACRA_JUDGE_MODEL is not: set SIMULACRA_JUDGE_MODEL to the judge's model name (e.g. gpt-4.1-mini), or unset ${name} to use the offline judge`
      ),
    };
  }
  const baseURL = e.SIMULACRA_JUDGE_BASE_URL ?? e.OPENAI_BASE_URL;
  const apiKey = e.SIMULACRA_JUDGE_API_KEY ?? e.OPENAI_API_KEY;
  if (baseURL === undefined && apiKey === undefined) {
    return {
      value: { mode: "offline" },
      problems: [
        "SIMULACRA_JUDGE_MODEL is set but no endpoint is: set SIMULACRA_JUDGE_API_KEY or OPENAI_API_KEY (OpenAI), or SIMULACRA_JUDGE_BASE_URL (any OpenAI-compatible server)",
      ],
    };
  }
  // Local servers accept any key; the SDK insists on one.
  return {
    value: { mode: "openai", apiKey: apiKey ?? "not-needed", baseURL, model },
    problems: [],
  };
}
