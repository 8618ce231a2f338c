import type { IRequest } from "itty-router";
import { bearerToken, sha256Hex } from "./auth";
import { fail } from "./errors";
import type { RequestContext } from "./route";

/** Compares in time that depends only on the lengths, so the token cannot be guessed byte by byte. */
export function timingSafeEqualText(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let difference = a.length ^ b.length;
  for (let index = 0; index < b.length; index += 1) difference |= (a[index] ?? 0) ^ b[index]!;
  return difference === 0;
}

/** Operator routes: `Authorization: Bearer <ADMIN_TOKEN>`; anything else is 403. */
export function requireAdmin(request: Request, env: Env): void {
  const token = bearerToken(request);
  const expected = env.ADMIN_TOKEN;
  if (token === null || typeof expected !== "string" || expected.length < 16 || !timingSafeEqualText(token, expected)) {
    fail("unauthenticated");
  }
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
  requireAdmin(request, env);
  const token = bearerToken(request)!;
  return { label: `admin:${(await sha256Hex(token)).slice(0, 8)}`, requestId };
}
