/**
 * Operator authentication: the break-glass ADMIN_TOKEN (and its previous value within a rotation's window),
 * compared here in constant time, and named operators' tokens, looked up by the operators' store (an
 * OperatorLookup handed in by the composition root, src/app.ts), so this module knows no table.
 */
import { sha256Hex } from "../kernel/crypto";
import { roleAllows, type Role } from "../kernel/roles";
import { bearerToken, clientAddress, rateLimited } from "./auth";
import { fail } from "../kernel/failures";
import { log } from "../kernel/log";
import type { AdminCaller, RequestContext } from "./route";

/** Compares in time that depends only on the lengths, so the token cannot be guessed byte by byte. */
export function timingSafeEqualText(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let difference = a.length ^ b.length;
  for (let index = 0; index < b.length; index += 1) difference |= (a[index] ?? 0) ^ b[index]!;
  return difference === 0;
}

declare global {
  interface Env {
    /**
     * The token a rotation of ADMIN_TOKEN replaced, still accepted until ADMIN_TOKEN_PREVIOUS_UNTIL (an ISO
     * 8601 time) so that nothing using it breaks while it is switched (docs/operations.md). Optional
     * secrets: wrangler.toml does not require them, so `wrangler types` does not declare them.
     */
    ADMIN_TOKEN_PREVIOUS?: string;
    ADMIN_TOKEN_PREVIOUS_UNTIL?: string;
  }
}

/** The longest overlap a rotation may ask for: a deadline further away than this accepts no previous token. */
export const MAX_ADMIN_TOKEN_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;

function usableToken(token: string | undefined): token is string {
  return typeof token === "string" && token.length >= 16;
}

/**
 * Whether the previous admin token is still accepted at `now`: set, at least 16 characters, and its
 * deadline a valid time in the future and at most MAX_ADMIN_TOKEN_OVERLAP_MS away (a deadline set by
 * mistake years ahead would otherwise keep an old token alive for good).
 */
export function previousTokenOpen(
  env: Pick<Env, "ADMIN_TOKEN_PREVIOUS" | "ADMIN_TOKEN_PREVIOUS_UNTIL">,
  now: number,
): boolean {
  if (!usableToken(env.ADMIN_TOKEN_PREVIOUS) || typeof env.ADMIN_TOKEN_PREVIOUS_UNTIL !== "string") return false;
  const until = Date.parse(env.ADMIN_TOKEN_PREVIOUS_UNTIL);
  return Number.isFinite(until) && now < until && until - now <= MAX_ADMIN_TOKEN_OVERLAP_MS;
}

/**
 * Operator tokens this isolate has seen live, until when: such a token is still looked up on every request
 * (a revocation takes effect at once) but is not counted against its address's budget of lookups.
 */
const recentlyLive = new Map<string, number>();
const RECENTLY_LIVE_LIMIT = 1_000;
const RECENTLY_LIVE_MS = 60_000;

/** Test-only: forgets which operator tokens were seen live. */
export function forgetLiveOperatorTokens(): void {
  recentlyLive.clear();
}

/** The live operator holding a token, or null (unknown, or revoked). */
export type OperatorLookup = (
  db: D1Database,
  token: string,
) => Promise<{ id: string; name: string; role: Role } | null>;

/** The caller of an operator route if its role allows `needed`; else 403 unauthenticated or forbidden. */
export type AuthorizeOperator = (request: Request, env: Env, requestId: string, needed: Role) => Promise<AdminCaller>;

/**
 * `Authorization: Bearer <token>`: ADMIN_TOKEN (or the previous one in its window) is the break-glass admin,
 * labelled "admin:" and the first 8 hex digits of its SHA-256 (which tells the tokens apart across a
 * rotation without saying anything usable about them); any other token must be a live operator's, whose
 * role must allow `needed` (403 forbidden otherwise, which says which role was needed). Unknown, revoked
 * and missing tokens are all 403 unauthenticated.
 */
export function operatorAuthorization(
  lookup: OperatorLookup,
  looksUp: (token: string) => boolean = () => true,
): AuthorizeOperator {
  return async (request, env, requestId, needed) => {
    const token = bearerToken(request);
    if (token === null) fail("unauthenticated");
    const current = usableToken(env.ADMIN_TOKEN) && timingSafeEqualText(token, env.ADMIN_TOKEN);
    const previous = usableToken(env.ADMIN_TOKEN_PREVIOUS) && timingSafeEqualText(token, env.ADMIN_TOKEN_PREVIOUS);
    if (current || (previous && previousTokenOpen(env, Date.now()))) {
      const label = `admin:${(await sha256Hex(token)).slice(0, 8)}`;
      if (!current) {
        // The runbook's signal that something still uses the old token before its window closes.
        log("warn", "previous admin token used", {
          component: "admin-auth",
          actor: label,
          requestId,
          until: env.ADMIN_TOKEN_PREVIOUS_UNTIL,
        });
      }
      return { actor: { kind: "break-glass", label }, role: "admin", requestId };
    }
    // A token of the shape the lookup reads D1 for, not seen live lately, is counted against the sender's
    // address first, so that a flood of made-up tokens gets 429 before D1 is read (as made-up API keys do,
    // src/http/auth.ts); a token of another shape is refused without a read.
    const now = Date.now();
    if (looksUp(token) && (recentlyLive.get(token) ?? 0) <= now) {
      const { success } = await env.UNKNOWN_KEY_LIMITER.limit({ key: `operator:${clientAddress(request)}` });
      if (!success) rateLimited();
    }
    const operator = await lookup(env.DB, token);
    if (operator === null) {
      recentlyLive.delete(token);
      fail("unauthenticated");
    }
    if (recentlyLive.size >= RECENTLY_LIVE_LIMIT) recentlyLive.clear();
    recentlyLive.set(token, now + RECENTLY_LIVE_MS);
    if (!roleAllows(operator.role, needed)) fail("forbidden", { role: operator.role, needed });
    return { actor: { kind: "operator", id: operator.id, name: operator.name }, role: operator.role, requestId };
  };
}

/** The caller of an operator route, as the router checked it; a route without `auth: "admin"` and a role has none. */
export function adminCaller(context: RequestContext): AdminCaller {
  if (context.admin === undefined)
    throw new Error('an operator route ran without its role check: describe it with auth "admin" and a role');
  return context.admin;
}
