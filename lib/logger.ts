/** @module Structured JSON-line logs. Callers pass fields; secrets and bodies are never logged. */

/** Severity of a log line. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** A structured logger. */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/** Keys whose values are replaced before a line is written, wherever they appear. */
const secretKey = /authorization|api[-_]?key|token|secret|password/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map((
      [k, v],
    ) => [k, secretKey.test(k) ? "[redacted]" : redact(v, depth + 1)]),
  );
}

/** Options for {@linkcode jsonLogger}. */
export interface JsonLoggerOptions {
  /** Lines below this level are dropped. @default "info" */
  level?: LogLevel;
  /** Where lines go. @default console.log / console.error */
  write?: (line: string, level: LogLevel) => void;
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logger writing one JSON object per line with `time`, `level` and `msg`. */
export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  const min = rank[options.level ?? "info"];
  const write = options.write ?? ((line: string, level: LogLevel) => {
    // deno-lint-ignore no-console
    (level === "error" ? console.error : console.log)(line);
  });
  return {
    log(level, msg, fields = {}) {
      if (rank[level] < min) return;
      // The line's own keys come last: a field named like one cannot overwrite it.
      const line = { ...(redact(fields) as object), time: new Date().toISOString(), level, msg };
      write(JSON.stringify(line), level);
    },
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { log() {} };
