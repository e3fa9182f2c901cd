/**
 * @module What every /v1 operation needs: its permission (or the admin key), whether it may
 * call a model (checked against budgets first), and whether a key scoped to agents may call it
 * although it names no agent. Keyed by method and OpenAPI path; a test checks this table
 * against the OpenAPI document, so a new route cannot ship without an entry (and until it has
 * one, only the admin key may call it).
 */
import type { Requirement } from "../src/access/api_key.ts";

/** One operation's access rule. */
export interface OperationRule {
  need: Requirement;
  /** Spends model calls: refused with `budget_exceeded` once a budget is spent. */
  model?: boolean;
  /** World-level, yet open to keys scoped to agents (their results are filtered). */
  agentScoped?: boolean;
}

/** Every /v1 operation, as `METHOD /v1/path` with OpenAPI `{param}` segments. */
export const OPERATION_RULES: Readonly<Record<string, OperationRule>> = {
  "POST /v1/worlds": { need: "admin", model: true },
  "GET /v1/worlds": { need: "read" },
  "GET /v1/worlds/{world}": { need: "read", agentScoped: true },
  "PATCH /v1/worlds/{world}": { need: "manage" },
  "DELETE /v1/worlds/{world}": { need: "admin" },
  "GET /v1/worlds/{world}/usage": { need: "read" },
  "POST /v1/worlds/{world}/agents": { need: "manage", model: true },
  "GET /v1/worlds/{world}/agents": { need: "read", agentScoped: true },
  "GET /v1/worlds/{world}/agents/{agent}": { need: "read" },
  "PATCH /v1/worlds/{world}/agents/{agent}": { need: "manage" },
  "DELETE /v1/worlds/{world}/agents/{agent}": { need: "manage" },
  "POST /v1/worlds/{world}/agents/{agent}/perceive": { need: "perceive", model: true },
  "POST /v1/worlds/{world}/agents/{agent}/retrieve": { need: "read", model: true },
  "GET /v1/worlds/{world}/agents/{agent}/memories": { need: "read" },
  "GET /v1/worlds/{world}/agents/{agent}/memories/{memory}": { need: "read" },
  "DELETE /v1/worlds/{world}/agents/{agent}/memories/{memory}": { need: "manage" },
  "GET /v1/worlds/{world}/environment": { need: "read" },
  "PUT /v1/worlds/{world}/environment": { need: "direct" },
  "PATCH /v1/worlds/{world}/objects": { need: "direct" },
  "POST /v1/worlds/{world}/agents/{agent}/plan": { need: "simulate", model: true },
  "GET /v1/worlds/{world}/agents/{agent}/plan": { need: "read" },
  "GET /v1/worlds/{world}/agents/{agent}/action": { need: "read" },
  "PUT /v1/worlds/{world}/agents/{agent}/persona": { need: "direct" },
  "GET /v1/worlds/{world}/agents/{agent}/persona": { need: "read" },
  "POST /v1/worlds/{world}/agents/{agent}/persona/build": { need: "direct", model: true },
  "GET /v1/worlds/{world}/agents/{agent}/persona/card": { need: "manage" },
  "POST /v1/worlds/{world}/agents/import": { need: "manage", model: true },
  // Inner voice needs `direct` as well: checked by the route, which sees the mode.
  "POST /v1/worlds/{world}/agents/{agent}/respond": { need: "talk", model: true },
  "POST /v1/worlds/{world}/agents/{agent}/interview": { need: "talk", model: true },
  "POST /v1/worlds/{world}/agents/{agent}/reflect": { need: "simulate", model: true },
  "POST /v1/worlds/{world}/conversations": { need: "simulate", model: true },
  // Not agent-scoped: a conversation may involve agents outside a scoped key's list.
  "GET /v1/worlds/{world}/conversations/{conversation}": { need: "read" },
  "POST /v1/worlds/{world}/agents/{agent}/react": { need: "simulate", model: true },
  "POST /v1/worlds/{world}/tick": { need: "simulate", model: true },
  "GET /v1/worlds/{world}/ticks/{tickId}": { need: "read" },
  "GET /v1/worlds/{world}/events": { need: "read" },
  "POST /v1/worlds/{world}/events/token": { need: "read" },
  "POST /v1/keys": { need: "admin" },
  "GET /v1/keys": { need: "admin" },
  "DELETE /v1/keys/{id}": { need: "admin" },
  "GET /v1/audit": { need: "admin" },
  // Issue 14: a whole world out or in (an import may re-embed), and the store-wide repair sweep.
  "GET /v1/worlds/{world}/export": { need: "read" },
  "POST /v1/worlds/import": { need: "admin", model: true },
  "POST /v1/admin/repair": { need: "admin", model: true },
};

/** A request matched to its operation, with the path parameters. */
export interface MatchedOperation {
  /** `METHOD /v1/path`, the key of {@linkcode OPERATION_RULES}. */
  operation: string;
  /** The OpenAPI path, e.g. `/v1/worlds/{world}/tick`. */
  route: string;
  rule: OperationRule | undefined;
  params: Record<string, string>;
}

interface CompiledOperation {
  method: string;
  route: string;
  pattern: RegExp;
  names: string[];
  /** Fewer parameters first, so `/agents/import` wins over `/agents/{agent}`. */
  params: number;
}

/**
 * Builds a matcher over the given OpenAPI paths (the app's document), so the table above and
 * the routes are joined at start-up. An operation missing from the table matches with
 * `rule: undefined`.
 */
export function operationMatcher(
  operations: readonly { method: string; route: string }[],
): (method: string, path: string) => MatchedOperation | null {
  const compiled: CompiledOperation[] = operations.map(({ method, route }) => {
    const names: string[] = [];
    const source = route.split("/").map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(param[1]);
      return "([^/]+)";
    }).join("/");
    return {
      method: method.toUpperCase(),
      route,
      pattern: new RegExp(`^${source}/?$`),
      names,
      params: names.length,
    };
  }).sort((a, b) => a.params - b.params);
  return (method, path) => {
    const upper = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
    for (const op of compiled) {
      if (op.method !== upper) continue;
      const match = op.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      op.names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(match[i + 1]);
        } catch {
          params[name] = match[i + 1];
        }
      });
      const operation = `${op.method} ${op.route}`;
      return { operation, route: op.route, rule: OPERATION_RULES[operation], params };
    }
    return null;
  };
}
