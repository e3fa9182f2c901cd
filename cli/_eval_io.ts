/** @module Private to cli/: where `deno task eval` reads and writes; the entry passes the process's. */

/** The command's streams and files. */
export interface EvalIo {
  /** One line of stdout. */
  out(line: string): void;
  /** Raw text to stderr (no newline added). */
  err(text: string): void;
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
}
