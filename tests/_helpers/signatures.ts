/**
 * @module Reads function signatures with the TypeScript parser, for the architecture test's
 * rule that a function takes at most three parameters (the last an options object where it
 * needs more).
 */
// Test-only: deno.dev.lock holds it, not the server's deno.lock.
// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@^5.9.3";

/** Most parameters a function may take. */
export const MAX_PARAMETERS = 3;

/** Every function of `source` taking more than {@linkcode MAX_PARAMETERS}, as `file:line name (n)`. */
export function wideFunctions(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isFunctionLike(node) && !ts.isFunctionTypeNode(node) && !ts.isConstructorTypeNode(node)
    ) {
      const params = node.parameters.filter((p) => p.name.getText(tree) !== "this");
      if (params.length > MAX_PARAMETERS) {
        const line = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1;
        found.push(`${file}:${line} ${nameOf(node, tree)} (${params.length})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

function nameOf(node: ts.SignatureDeclaration, tree: ts.SourceFile): string {
  if (node.name) return node.name.getText(tree);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    return parent.name.getText(tree);
  }
  return "(anonymous)";
}

if (import.meta.main) {
  const roots = Deno.args.length > 0 ? Deno.args : ["src", "lib", "routes", "cli", "dev"];
  const walk = async function* (dir: string): AsyncGenerator<string> {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) yield* walk(path);
      else if (entry.name.endsWith(".ts") && !/\.gen(erated)?\.ts$/.test(entry.name)) yield path;
    }
  };
  let total = 0;
  for (const root of roots) {
    const stat = await Deno.stat(root);
    const files = stat.isDirectory ? await Array.fromAsync(walk(root)) : [root];
    for (const file of files.sort()) {
      for (const line of wideFunctions(file, await Deno.readTextFile(file))) {
        // deno-lint-ignore no-console
        console.log(line);
        total++;
      }
    }
  }
  // deno-lint-ignore no-console
  console.log(`${total} functions take more than ${MAX_PARAMETERS} parameters`);
}
