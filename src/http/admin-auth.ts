import type { IRequest } from "itty-router";
import { sha256Hex } from "../kernel/crypto";
import { bearerToken } from "./auth";
import { fail } from "./errors";
import { log } from "../kernel/log";
import type { RequestContext } from "./route";

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
export function previousTokenOpen(env: Pick<Env, "ADMIN_TOKEN_PREVIOUS" | "ADMIN_TOKEN_PREVIOUS_UNTIL">, now: number): boolean {
  if (!usableToken(env.ADMIN_TOKEN_PREVIOUS) || typeof env.ADMIN_TOKEN_PREVIOUS_UNTIL !== "string") return false;
  const until = Date.parse(env.ADMIN_TOKEN_PREVIOUS_UNTIL);
  return Number.isFinite(until) && now < until && until - now <= MAX_ADMIN_TOKEN_OVERLAP_MS;
}

/**
 * Operator routes: `Authorization: Bearer <ADMIN_TOKEN>`, or the previous token during its overlap window;
 * anything else is 403. Answers which of the two it was. Both comparisons always run, in constant time.
 */
export function requireAdmin(request: Request, env: Env, now = Date.now()): "current" | "previous" {
  const token = bearerToken(request);
  if (token === null) fail("unauthenticated");
  const current = usableToken(env.ADMIN_TOKEN) && timingSafeEqualText(token, env.ADMIN_TOKEN);
  const previous = usableToken(env.ADMIN_TOKEN_PREVIOUS) && timingSafeEqualText(token, env.ADMIN_TOKEN_PREVIOUS);
  if (current) return "current";
  if (previous && previousTokenOpen(env, now)) return "previous";
  fail("unauthenticated");
}

/** Who did an operator action: a label of the admin token (never the token) and the request it came in. */
export interface Actor {
  label: string;
  requestId: string;
}

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` or 403 (constant-time compare in requireAdmin). The label is
 * "admin:" and the first 8 hex digits of the token's SHA-256: it tells tokens apart across a rotation of
 * ADMIN_TOKEN without saying anything usable about the token.
 */
export async function adminActor(request: IRequest, { env, requestId }: RequestContext): Promise<Actor> {
  const which = requireAdmin(request, env);
  const token = bearerToken(request)!;
  const label = `admin:${(await sha256Hex(token)).slice(0, 8)}`;
  if (which === "previous") {
    // The runbook's signal that something still uses the old token before its window closes.
    log("warn", "previous admin token used", { component: "admin-auth", actor: label, requestId, until: env.ADMIN_TOKEN_PREVIOUS_UNTIL });
  }
  return { label, requestId };
}
