/** @module What a route declares it needs (its access rule), and a request joined to its route. */
import type { Requirement } from "../src/domain/mod.ts";

/** One operation's access rule. */
export interface OperationRule {
  need: Requirement;
  /** Spends model calls: refused with `budget_exceeded` once a budget is spent. */
  model?: boolean;
  /** World-level, yet open to keys scoped to agents (their results are filtered). */
  agentScoped?: boolean;
  /**
   * Runs once its world's daily budget is spent, without model calls (a tick moves agents on
   * their plans); a key's own budget still applies.
   */
  pastWorldBudget?: boolean;
  /** Also takes an events token as `?token=` instead of the Authorization header (EventSource). */
  eventsToken?: boolean;
}

/** A request joined to the route Hono matched for it, with that route's declared rule. */
export interface MatchedOperation {
  /** `METHOD /v1/path`, e.g. `POST /v1/worlds/{world}/tick`. */
  operation: string;
  /** The OpenAPI path, e.g. `/v1/worlds/{world}/tick`. */
  route: string;
  /** Undefined when the route declares none: admin only. */
  rule: OperationRule | undefined;
  params: Record<string, string>;
}
