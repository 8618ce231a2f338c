import { bearerToken } from "./auth";
import { fail } from "./errors";

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
