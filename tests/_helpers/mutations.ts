/**
 * @module Finds functions that mutate an argument they were given, with the TypeScript compiler
 * and its type checker, for the architecture test's rule that a function returns new values
 * instead: an assignment to a property of a parameter (`param.x = …`, `param[k] += …`,
 * `delete param.x`, `param.n++`), `Object.assign(param, …)`, and a mutating method of an array,
 * map, set or typed array reached from a parameter (`param.push(…)`, `param.cache.set(…)`).
 *
 * "Reached from a parameter" follows property chains and local aliases (`const m = param.m;
 * m.add(x)`), never calls: `param.slice().sort()` sorts a copy. The type checker tells a map's
 * `set` from a store's `set` (`deps.storage.documents.set` writes a store, not an argument), so
 * `set`, `add`, `delete` and `clear` count only on built-in collections. Packages are not
 * resolved (it keeps the check fast), so a value typed by one is `any`: the array-only methods
 * (`push`, `sort`, …) still count on it, the others do not. `this` is not a parameter: a method
 * changing its own object is not flagged.
 */
// Test-only: deno.dev.lock holds it, not the server's deno.lock.
// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@^5.9.3";

/** Methods that change the array, map, set or typed array they are called on. */
export const MUTATING_METHODS: ReadonlySet<string> = new Set([
  "push",
  "pop",
  "splice",
  "set",
  "add",
  "delete",
  "clear",
  "sort",
  "reverse",
  "unshift",
  "shift",
  "fill",
  "copyWithin",
]);
/** The methods only arrays (and typed arrays) have: counted even when the type is unknown. */
const ARRAY_ONLY = new Set(["push", "pop", "splice", "sort", "reverse", "unshift", "shift"]);
/** Built-in types whose mutating methods change the value itself. */
const COLLECTIONS = /^(?:Array|ReadonlyArray|Map|Set|WeakMap|WeakSet|\w+Array)$/;

const OPTIONS: ts.CompilerOptions = {
  noEmit: true,
  allowImportingTsExtensions: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2022.d.ts"],
  strict: true,
  skipLibCheck: true,
  types: [],
};

/**
 * Every mutation of an argument in `files` (path from the repository root → source), as
 * `file fn: code` (no line numbers, so an allowlist entry survives edits around it).
 */
export function argumentMutations(files: ReadonlyMap<string, string>): string[] {
  const cwd = Deno.cwd();
  const absolute = new Map([...files].map(([f, s]) => [`${cwd}/${f}`, s]));
  const host = ts.createCompilerHost(OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => {
    const text = absolute.get(name);
    return text === undefined
      ? getSourceFile(name, version)
      : ts.createSourceFile(name, text, version, true);
  };
  host.fileExists = (name) => absolute.has(name);
  host.readFile = (name) => absolute.get(name) ?? ts.sys.readFile(name);
  host.getCurrentDirectory = () => cwd;
  // Only the project's own files: a package's types would cost seconds and change no finding.
  host.resolveModuleNameLiterals = (literals, containing, _redirect, options) =>
    literals.map((l) =>
      l.text.startsWith(".")
        ? ts.resolveModuleName(l.text, containing, options, host)
        : { resolvedModule: undefined }
    );
  const program = ts.createProgram([...absolute.keys()], OPTIONS, host);
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of absolute.keys()) {
    const tree = program.getSourceFile(file)!;
    const relative = file.slice(cwd.length + 1);
    const visit = (node: ts.Node) => {
      const code = mutationOf(node, checker);
      if (code !== null) found.push(`${relative} ${enclosingName(node, tree)}: ${code}`);
      ts.forEachChild(node, visit);
    };
    visit(tree);
  }
  return found;
}

/** The code of `node` when it mutates a value reached from a parameter, else null. */
function mutationOf(node: ts.Node, checker: ts.TypeChecker): string | null {
  if (
    ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) &&
    isMember(node.left) && fromParameter(node.left, checker)
  ) {
    return node.left.getText() + " " + node.operatorToken.getText();
  }
  if (
    (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
    (node.operator === ts.SyntaxKind.PlusPlusToken ||
      node.operator === ts.SyntaxKind.MinusMinusToken) &&
    isMember(node.operand) && fromParameter(node.operand, checker)
  ) {
    return node.getText();
  }
  if (ts.isDeleteExpression(node) && fromParameter(node.expression, checker)) return node.getText();
  if (!ts.isCallExpression(node)) return null;
  const callee = node.expression;
  if (!ts.isPropertyAccessExpression(callee)) return null;
  if (
    callee.getText() === "Object.assign" && node.arguments.length > 0 &&
    fromParameter(node.arguments[0], checker)
  ) {
    return `Object.assign(${node.arguments[0].getText()}, …)`;
  }
  const method = callee.name.text;
  if (!MUTATING_METHODS.has(method) || !fromParameter(callee.expression, checker)) return null;
  return isCollection(checker.getTypeAtLocation(callee.expression), method)
    ? `${callee.expression.getText()}.${method}(…)`
    : null;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function isMember(node: ts.Node): boolean {
  return ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node);
}

/** Whether the value of `node` is a parameter or reached from one by properties and aliases. */
function fromParameter(node: ts.Expression, checker: ts.TypeChecker): boolean {
  const root = rootOf(node);
  if (!ts.isIdentifier(root)) return false;
  const symbol = checker.getSymbolAtLocation(root);
  if (symbol === undefined) return false;
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (declaration === undefined) return false;
  if (isParameterBinding(declaration)) return true;
  // A local alias: `const m = param.m` or `const { m } = param`.
  if (ts.isVariableDeclaration(declaration) && declaration.initializer) {
    return fromParameter(declaration.initializer, checker);
  }
  if (ts.isBindingElement(declaration)) {
    const variable = bindingRoot(declaration);
    return ts.isVariableDeclaration(variable) && variable.initializer !== undefined &&
      fromParameter(variable.initializer, checker);
  }
  return false;
}

/** The identifier (or `this`, or a call) a chain of property reads starts from. */
function rootOf(node: ts.Expression): ts.Expression {
  let current = node;
  while (
    ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current) ||
    ts.isNonNullExpression(current) || ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current) || ts.isSatisfiesExpression(current)
  ) {
    current = current.expression;
  }
  return current;
}

function isParameterBinding(declaration: ts.Declaration): boolean {
  if (ts.isParameter(declaration)) return declaration.name.getText() !== "this";
  return ts.isBindingElement(declaration) && ts.isParameter(bindingRoot(declaration));
}

/** The parameter or variable declaration a destructured name belongs to. */
function bindingRoot(element: ts.BindingElement): ts.Node {
  let node: ts.Node = element;
  while (
    ts.isBindingElement(node) || ts.isObjectBindingPattern(node) || ts.isArrayBindingPattern(node)
  ) {
    node = node.parent;
  }
  return node;
}

/** Whether calling `method` on a value of `type` changes the value. */
function isCollection(type: ts.Type, method: string): boolean {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return ARRAY_ONLY.has(method);
  if (type.isUnion()) return type.types.some((t) => isCollection(t, method));
  const name = type.getSymbol()?.name ?? "";
  return COLLECTIONS.test(name);
}

/** The name of the function `node` is in, for the report. */
function enclosingName(node: ts.Node, tree: ts.SourceFile): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (!ts.isFunctionLike(n)) continue;
    if (n.name) return n.name.getText(tree);
    const parent = n.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
      return parent.name.getText(tree);
    }
  }
  return "(top level)";
}
