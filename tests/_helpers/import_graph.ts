/**
 * @module Reads the project's TypeScript files and their relative imports, for the architecture
 * test: which file imports which, resolved to paths from the repository root.
 */
import { dirname, join, normalize } from "node:path";

/** Folders that are not the project's own code. */
const NOT_OURS = new Set(["node_modules", ".git", "dist", "cov", ".wrangler", ".simulacra"]);
/** Generated files: data, not code to hold to the rules. */
export const GENERATED = /(?:\.generated|\.gen)\.ts$/;

/** Every .ts file under `dir` (a path from the repository root), generated ones left out. */
export async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (NOT_OURS.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.name.endsWith(".ts") && !GENERATED.test(entry.name)) yield path;
  }
}

/** The product's code: everything but the tests, each file with its source. */
export async function productSources(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const dir of ["src", "lib", "routes", "cli", "dev", "playground", "towns"]) {
    for await (const file of tsFiles(dir)) files.set(file, await Deno.readTextFile(file));
  }
  for await (const entry of Deno.readDir(".")) {
    if (entry.isFile && entry.name.endsWith(".ts")) {
      files.set(entry.name, await Deno.readTextFile(entry.name));
    }
  }
  return files;
}

/** The specifiers a source imports or re-exports, dynamic imports included (not in comments). */
export function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [
    ...code.matchAll(
      /^\s*(?:import|export)\b[^"';]*?from\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The repository path a relative specifier of `file` names; null for a package. */
export function resolveImport(file: string, spec: string): string | null {
  return spec.startsWith(".") ? normalize(join(dirname(file), spec)) : null;
}

/** Each file's relative imports, resolved. */
export function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const targets = importsOf(source).map((spec) => resolveImport(file, spec));
    graph.set(file, targets.filter((t): t is string => t !== null));
  }
  return graph;
}

/** The import cycles among `graph`'s files, each as the files around it. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") cycles.push(path.slice(path.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}
