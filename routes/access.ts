/**
 * @module Who may call what: the admin key or an API key (or an events token), failed-auth
 * back-off per client address, per-key rate limits, permissions and scopes, and budgets, all
 * before the route runs. Without an admin key everything is allowed, but only for loopback
 * `Host` names (no DNS rebinding from a web page).
 */
import type { Context, MiddlewareHandler } from "hono";
import {
  agentNotFound,
  allows,
  type ApiKey,
  type ErrorCode,
  type Principal,
  type RateLimitRule,
  seesAgent,
  seesWorld,
  SimulacraError,
  type World,
  worldNotFound,
} from "../src/domain/mod.ts";
import { spentKeyBudget, spentWorldBudget, worldKey } from "../src/app/mod.ts";
import type { Deps, RateDecision } from "../src/ports/mod.ts";
import { keyById, keyForSecret, sameText } from "../lib/access/api_keys.ts";
import { utcDay } from "../lib/access/budget_meter.ts";
import type { EventsTokens } from "../lib/access/events_token.ts";
import { runInRequest } from "../lib/access/request_context.ts";
import { AuthBackoff } from "../lib/access/auth_backoff.ts";
import type { AppEnv } from "./app_env.ts";
import { errorBody, statusOf } from "./errors.ts";
import { isLoopbackHost } from "./host.ts";
import { type MatchedOperation, matchedOperation } from "./permissions.ts";

/** Options of {@linkcode accessControl}. */
export interface AccessOptions {
  adminKey?: string;
  /** Keys without their own `rateLimit` get this one. */
  keyRateLimit: RateLimitRule;
  /** The client's address, for failed-auth back-off. */
  clientAddress: (c: Context) => string;
  /** Signs events tokens; absent without an admin key. */
  eventsTokens?: EventsTokens;
  now: () => number;
}

/**
 * The middleware for `/v1/*`; sets `principal` and `operation` for the routes. It enforces the
 * rule the matched route declares (routes/permissions.ts) before any other /v1 middleware, so
 * refusals come before query and body checks.
 */
export function accessControl(
  deps: Pick<Deps, "storage">,
  options: AccessOptions,
): MiddlewareHandler<AppEnv> {
  const storage = deps.storage;
  const backoff = new AuthBackoff(storage.rateLimits);
  return async function accessControlMiddleware(c, next) {
    const matched = matchedOperation(c);
    c.set("operation", matched);
    if (options.adminKey === undefined && !isLoopbackHost(c.req.header("host"))) {
      return fail(
        c,
        "forbidden",
        "Cannot serve this Host: without SIMULACRA_ADMIN_KEY the server answers only loopback names (localhost, 127.0.0.1, [::1])",
      );
    }
    // Without an admin key every (loopback) request is the admin's; world budgets still apply.
    const auth = options.adminKey === undefined
      ? { principal: { kind: "admin" as const }, released: Promise.resolve() }
      : await authenticate(c, matched);
    if (auth instanceof Response) return auth;
    try {
      return await admitted(c, { principal: auth.principal, matched, next });
    } finally {
      await auth.released;
    }
  };

  /** The rest of access control, for an authenticated request. */
  async function admitted(
    c: Context<AppEnv>,
    { principal, matched, next }: {
      principal: Principal;
      matched: MatchedOperation | null;
      next: () => Promise<void>;
    },
  ): Promise<Response | void> {
    c.set("principal", principal);
    if (principal.kind === "key") {
      const rule = principal.key.rateLimit ?? options.keyRateLimit;
      const decision = await storage.rateLimits.limit(`key:${principal.key.id}`, windowOf(rule));
      setRateHeaders(c, { decision, rule });
      if (!decision.success) {
        setRetryAfter(c, decision.reset);
        return fail(
          c,
          "rate_limited",
          `Cannot serve more requests for this key now: it may make ${decision.limit} per ${rule.perSeconds} s; retry after the Retry-After header's seconds`,
        );
      }
      await authorize(principal, matched);
    }
    if (matched?.rule?.model) await checkBudgets(principal, matched);
    await runInRequest({ keyId: principal.kind === "key" ? principal.key.id : undefined }, next);
  }

  /**
   * Who sent the request. Each attempt takes a failed-auth slot of the client's address before
   * its credential is checked (lib/access/auth_backoff.ts): a blocked address is refused
   * whatever it sent, so a right guess from it learns nothing, and a right credential gives the
   * slot back (`released`, under way while the route runs).
   */
  async function authenticate(
    c: Context<AppEnv>,
    matched: MatchedOperation | null,
  ): Promise<{ principal: Principal; released: Promise<void> } | Response> {
    const header = c.req.header("authorization");
    const token = c.req.query("token");
    const byToken = header === undefined && token !== undefined && matched !== null &&
      options.eventsTokens !== undefined && matched.rule?.eventsToken === true;
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header.trim())?.[1] : undefined;
    if (!byToken && bearer === undefined) {
      return fail(
        c,
        "unauthorized",
        "Cannot authorise this request: send Authorization: Bearer <SIMULACRA_ADMIN_KEY or an API key>",
      );
    }
    const admission = await backoff.admit(options.clientAddress(c));
    if ("blockedUntil" in admission) {
      setRetryAfter(c, admission.blockedUntil);
      return fail(
        c,
        "rate_limited",
        "Cannot authorise requests from this address for now: too many failed authentications; retry after the Retry-After header's seconds",
      );
    }
    const { slot } = admission;
    let principal: Principal | null;
    try {
      principal = byToken ? await tokenPrincipal(token!, matched!) : await keyPrincipal(bearer!);
    } catch (err) {
      // The store failed: nothing was learned, so the attempt does not count.
      await slot.release().catch(() => {});
      throw err;
    }
    if (principal === null) {
      slot.keep();
      const why = byToken
        ? "the events token is wrong, expired, or for another world"
        : "the key is wrong, revoked or expired";
      return fail(c, "forbidden", `Cannot authorise this request: ${why}`);
    }
    // A refund that fails leaves the slot counted until its window slides on; nothing else.
    return { principal, released: slot.release().catch(() => {}) };
  }

  async function keyPrincipal(bearer: string): Promise<Principal | null> {
    if (sameText(bearer, options.adminKey!)) return { kind: "admin" };
    const key = await keyForSecret(storage.documents, bearer);
    if (key && (key.expiresAt === undefined || Date.parse(key.expiresAt) > options.now())) {
      return { kind: "key", key };
    }
    return null;
  }

  async function tokenPrincipal(
    token: string,
    matched: MatchedOperation,
  ): Promise<Principal | null> {
    const claims = await options.eventsTokens!.verify(token, options.now());
    const minter = claims?.keyId ? await keyById(storage.documents, claims.keyId) : null;
    if (claims && claims.worldId === matched.params.world && (!claims.keyId || minter)) {
      return { kind: "key", key: eventsTokenKey({ ...claims, token }, minter) };
    }
    return null;
  }

  async function checkBudgets(principal: Principal, matched: MatchedOperation): Promise<void> {
    const worldId = matched.params.world;
    const [keySpent, world] = await Promise.all([
      principal.kind === "key" ? spentKeyBudget(deps, principal.key) : null,
      // A route that runs past a spent world budget (the tick) skips reading it.
      worldId === undefined || matched.rule?.pastWorldBudget
        ? undefined
        : storage.documents.get<World>(worldKey(worldId)),
    ]);
    if (principal.kind === "key" && keySpent) {
      throw new SimulacraError(
        "budget_exceeded",
        `Cannot call a model for this key: its budget of ${
          principal.key.budget?.[keySpent]
        } ${keySpent} is spent; ask the admin for a new key`,
        { details: { budget: "key", limit: keySpent } },
      );
    }
    const spent = world
      ? await spentWorldBudget(deps, world.value, { day: utcDay(options.now()) })
      : null;
    if (spent) {
      const max = spent.limit === "calls" ? spent.budget.callsPerDay : spent.budget.tokensPerDay;
      throw new SimulacraError(
        "budget_exceeded",
        `Cannot call a model in world "${
          world!.id
        }" today: its daily budget of ${max} ${spent.limit} is spent (settings.budget); it resets at midnight UTC`,
        { details: { budget: "world", limit: spent.limit, day: spent.day } },
      );
    }
  }
}

/**
 * Refuses a key what it may not do. Worlds and agents outside its scope answer exactly like
 * missing ones (404), so a key cannot probe for ids.
 */
function authorize(principal: Principal & { kind: "key" }, matched: MatchedOperation | null) {
  if (matched === null) return; // no such route: the 404 says so
  const { rule, params, operation } = matched;
  if (rule === undefined || rule.need === "admin") {
    throw new SimulacraError(
      "forbidden",
      `Cannot call ${operation} with an API key: only the admin key may`,
    );
  }
  if (params.world !== undefined && !seesWorld(principal, params.world)) {
    throw worldNotFound(params.world);
  }
  if (params.agent !== undefined && !seesAgent(principal, params.agent)) {
    throw agentNotFound({ worldId: params.world ?? "", agentId: params.agent });
  }
  if (!allows(principal, rule.need)) {
    throw new SimulacraError(
      "forbidden",
      `Cannot call ${operation}: this key lacks the "${rule.need}" permission`,
      { details: { missing: rule.need } },
    );
  }
  if (
    principal.key.scope.agents !== undefined && params.world !== undefined &&
    params.agent === undefined && !rule.agentScoped
  ) {
    throw new SimulacraError(
      "forbidden",
      `Cannot call ${operation}: this key's scope covers some agents only, not the whole world`,
      { details: { missing: "scope" } },
    );
  }
}

/**
 * The principal an events token stands for: `read` of one world. A key's token counts against
 * the key's rate limit (same id); an admin's token has a window of its own (the end of its
 * signature), so viewers of one dashboard do not throttle each other.
 */
function eventsTokenKey(
  { worldId, keyId, token }: { worldId: string; keyId: string | null; token: string },
  minter: ApiKey | null,
): ApiKey {
  return {
    id: keyId ?? `events-token-${token.slice(-16)}`,
    name: "events token",
    createdAt: minter?.createdAt ?? new Date(0).toISOString(),
    permissions: ["read"],
    scope: { worlds: [worldId as ApiKey["scope"]["worlds"][number]] } as ApiKey["scope"],
    rateLimit: minter?.rateLimit,
  };
}

function windowOf(rule: RateLimitRule) {
  return { requests: rule.requests, windowMs: rule.perSeconds * 1000 };
}

function setRateHeaders(
  c: Context,
  { decision, rule }: { decision: RateDecision; rule: RateLimitRule },
): void {
  const seconds = Math.max(0, Math.ceil((decision.reset - Date.now()) / 1000));
  c.header("RateLimit-Limit", String(decision.limit));
  c.header("RateLimit-Remaining", String(decision.remaining));
  c.header("RateLimit-Reset", String(seconds));
  c.header("RateLimit-Policy", `${rule.requests};w=${rule.perSeconds}`);
}

function setRetryAfter(c: Context, reset: number): void {
  c.header("Retry-After", String(Math.max(1, Math.ceil((reset - Date.now()) / 1000))));
}

function fail(c: Context, code: ErrorCode, message: string): Response {
  return c.json(errorBody(code, message), statusOf[code] as 401);
}
