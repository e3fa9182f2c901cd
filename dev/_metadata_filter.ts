/**
 * @module The subset of Upstash Vector's SQL-like metadata filter that the dev vector server
 * understands: `=`, `!=`, `<`, `<=`, `>`, `>=`, `IN (…)`, `NOT IN (…)`, `AND`, `OR`, parentheses,
 * string ('…' or "…"), number and boolean literals, and field paths such as `a.b` or `tags[0]`.
 * Keywords are case-insensitive and AND binds tighter than OR. Anything else (GLOB, CONTAINS,
 * HAS FIELD, NOT …) is rejected with a {@linkcode FilterSyntaxError} naming what was found.
 */

/** A filter the dev server cannot parse or does not support. */
export class FilterSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FilterSyntaxError";
  }
}

/** A compiled filter: true when a vector's metadata matches. */
export type MetadataPredicate = (metadata: Record<string, unknown> | undefined) => boolean;

type Literal = string | number | boolean;
type PathPart = string | number;
type Node =
  | { kind: "and" | "or"; left: Node; right: Node }
  | { kind: "compare"; path: PathPart[]; op: "=" | "!=" | "<" | "<=" | ">" | ">="; value: Literal }
  | { kind: "in"; path: PathPart[]; values: Literal[]; negate: boolean };

type Token =
  | { type: "ident"; text: string; at: number }
  | { type: "string"; value: string; at: number }
  | { type: "number"; value: number; at: number }
  | { type: "op"; text: string; at: number }
  | { type: "punct"; text: "(" | ")" | "," | "." | "[" | "]"; at: number }
  | { type: "end"; at: number };

const SUPPORTED =
  "the dev vector server supports =, !=, <, <=, >, >=, IN, NOT IN, AND, OR and parentheses";

/**
 * Compiles a filter string; an empty or blank filter matches everything.
 *
 * @throws FilterSyntaxError for malformed or unsupported syntax
 */
export function compileFilter(filter: string): MetadataPredicate {
  if (filter.trim() === "") return () => true;
  const parser = new Parser(tokenize(filter));
  const node = parser.parseExpression();
  parser.expectEnd();
  return (metadata) => evaluate(node, metadata ?? {});
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === "'" || c === '"') {
      let value = "";
      i++;
      while (i < input.length && input[i] !== c) {
        if (input[i] === "\\" && i + 1 < input.length) i++;
        value += input[i++];
      }
      if (i >= input.length) {
        throw new FilterSyntaxError(`Invalid filter: unterminated string at position ${at}`);
      }
      i++;
      tokens.push({ type: "string", value, at });
      continue;
    }
    const number = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(input.slice(i));
    if (number && (c !== "-" || !/[\w\])]$/.test(input.slice(0, i).trimEnd()))) {
      tokens.push({ type: "number", value: Number(number[0]), at });
      i += number[0].length;
      continue;
    }
    const op = /^(<=|>=|!=|=|<|>)/.exec(input.slice(i));
    if (op) {
      tokens.push({ type: "op", text: op[0], at });
      i += op[0].length;
      continue;
    }
    if ("(),.[]".includes(c)) {
      tokens.push({ type: "punct", text: c as "(" | ")" | "," | "." | "[" | "]", at });
      i++;
      continue;
    }
    const ident = /^[A-Za-z_$][\w$]*/.exec(input.slice(i));
    if (ident) {
      tokens.push({ type: "ident", text: ident[0], at });
      i += ident[0].length;
      continue;
    }
    throw new FilterSyntaxError(`Invalid filter: unexpected "${c}" at position ${at}`);
  }
  tokens.push({ type: "end", at: input.length });
  return tokens;
}

class Parser {
  readonly #tokens: Token[];
  #pos = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parseExpression(): Node {
    let left = this.#parseAnd();
    while (this.#keyword("OR")) {
      this.#pos++;
      left = { kind: "or", left, right: this.#parseAnd() };
    }
    return left;
  }

  expectEnd(): void {
    const token = this.#peek();
    if (token.type !== "end") throw this.#unexpected(token, "AND, OR or the end of the filter");
  }

  #parseAnd(): Node {
    let left = this.#parsePrimary();
    while (this.#keyword("AND")) {
      this.#pos++;
      left = { kind: "and", left, right: this.#parsePrimary() };
    }
    return left;
  }

  #parsePrimary(): Node {
    const token = this.#peek();
    if (token.type === "punct" && token.text === "(") {
      this.#pos++;
      const inner = this.parseExpression();
      this.#expectPunct(")");
      return inner;
    }
    if (token.type !== "ident") throw this.#unexpected(token, "a field name or '('");
    if (/^not$/i.test(token.text) || /^has$/i.test(token.text)) throw this.#unsupported(token);
    const path = this.#parsePath();
    const next = this.#peek();
    if (next.type === "op") {
      this.#pos++;
      const value = this.#parseLiteral();
      const op = next.text as "=" | "!=" | "<" | "<=" | ">" | ">=";
      if (typeof value === "boolean" && op !== "=" && op !== "!=") {
        throw new FilterSyntaxError(
          `Invalid filter: "${op}" at position ${next.at} cannot compare with a boolean`,
        );
      }
      return { kind: "compare", path, op, value };
    }
    let negate = false;
    if (this.#keyword("NOT")) {
      this.#pos++;
      negate = true;
    }
    if (this.#keyword("IN")) {
      this.#pos++;
      this.#expectPunct("(");
      const values = [this.#parseLiteral()];
      while (this.#punct(",")) {
        this.#pos++;
        values.push(this.#parseLiteral());
      }
      this.#expectPunct(")");
      return { kind: "in", path, values, negate };
    }
    const after = this.#peek();
    if (after.type === "ident") throw this.#unsupported(after);
    throw this.#unexpected(after, "an operator");
  }

  #parsePath(): PathPart[] {
    const first = this.#peek() as Token & { type: "ident" };
    this.#pos++;
    const path: PathPart[] = [first.text];
    while (true) {
      if (this.#punct(".")) {
        this.#pos++;
        const name = this.#peek();
        if (name.type !== "ident") throw this.#unexpected(name, "a field name after '.'");
        this.#pos++;
        path.push(name.text);
      } else if (this.#punct("[")) {
        this.#pos++;
        const index = this.#peek();
        if (index.type !== "number" || !Number.isInteger(index.value) || index.value < 0) {
          throw this.#unexpected(index, "an array index");
        }
        this.#pos++;
        this.#expectPunct("]");
        path.push(index.value);
      } else {
        return path;
      }
    }
  }

  #parseLiteral(): Literal {
    const token = this.#peek();
    this.#pos++;
    if (token.type === "string" || token.type === "number") return token.value;
    if (token.type === "ident" && /^(true|false)$/i.test(token.text)) {
      return token.text.toLowerCase() === "true";
    }
    throw this.#unexpected(token, "a string, number or boolean");
  }

  #peek(): Token {
    return this.#tokens[this.#pos];
  }

  #keyword(word: string): boolean {
    const token = this.#peek();
    return token.type === "ident" && token.text.toUpperCase() === word;
  }

  #punct(text: string): boolean {
    const token = this.#peek();
    return token.type === "punct" && token.text === text;
  }

  #expectPunct(text: string): void {
    if (!this.#punct(text)) throw this.#unexpected(this.#peek(), `'${text}'`);
    this.#pos++;
  }

  #unexpected(token: Token, expected: string): FilterSyntaxError {
    const found = token.type === "end" ? "the end of the filter" : `"${describe(token)}"`;
    return new FilterSyntaxError(
      `Invalid filter: expected ${expected} at position ${token.at}, found ${found}`,
    );
  }

  #unsupported(token: Token): FilterSyntaxError {
    return new FilterSyntaxError(
      `Unsupported filter syntax "${describe(token)}" at position ${token.at}: ${SUPPORTED}`,
    );
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case "ident":
    case "op":
    case "punct":
      return token.text;
    case "string":
      return `'${token.value}'`;
    case "number":
      return String(token.value);
    case "end":
      return "";
  }
}

function evaluate(node: Node, metadata: Record<string, unknown>): boolean {
  switch (node.kind) {
    case "and":
      return evaluate(node.left, metadata) && evaluate(node.right, metadata);
    case "or":
      return evaluate(node.left, metadata) || evaluate(node.right, metadata);
    case "in": {
      const actual = lookup(metadata, node.path);
      if (!isLiteral(actual)) return false;
      return node.values.some((v) => v === actual) !== node.negate;
    }
    case "compare": {
      // A missing field, or one of another type than the literal, never matches.
      const actual = lookup(metadata, node.path);
      if (!isLiteral(actual) || typeof actual !== typeof node.value) return false;
      switch (node.op) {
        case "=":
          return actual === node.value;
        case "!=":
          return actual !== node.value;
        case "<":
          return actual < node.value;
        case "<=":
          return actual <= node.value;
        case ">":
          return actual > node.value;
        case ">=":
          return actual >= node.value;
      }
    }
  }
}

function lookup(value: unknown, path: PathPart[]): unknown {
  let current = value;
  for (const part of path) {
    if (typeof part === "number") {
      if (!Array.isArray(current)) return undefined;
      current = current[part];
    } else {
      if (current === null || typeof current !== "object" || Array.isArray(current)) {
        return undefined;
      }
      current = (current as Record<string, unknown>)[part];
    }
  }
  return current;
}

function isLiteral(value: unknown): value is Literal {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}
