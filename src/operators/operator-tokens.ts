/** Operator tokens: made once, shown once, kept only as a SHA-256; the lookup the admin auth and sign-in share. */
import { timingSafeEqualText } from "../http/admin-auth";
import { randomHex, sha256Hex } from "../kernel/crypto";
import type { Role } from "../kernel/roles";
import { operatorByTokenHash } from "./operator-store";

/** The prefix of every operator token: tells one apart from a client key (sk_…) in a log or a paste. */
export const OPERATOR_TOKEN_PREFIX = "opt_";

const OPERATOR_TOKEN = /^opt_[0-9a-f]{64}$/;

/** Whether `token` has an operator token's shape: only such a token is looked up in D1. */
export function hasOperatorTokenShape(token: string): boolean {
  return OPERATOR_TOKEN.test(token);
}

/** A new token: 256 random bits. */
export function newOperatorToken(): string {
  return `${OPERATOR_TOKEN_PREFIX}${randomHex(32)}`;
}

export interface LiveOperator {
  id: string;
  name: string;
  role: Role;
}

/**
 * The live (not revoked) operator holding `token`, or null. Read from the primary on every call: operator
 * traffic is light, and a revocation or a role change then holds from the next request on.
 */
export async function liveOperatorOfToken(db: D1Database, token: string): Promise<LiveOperator | null> {
  // Only something shaped like a token costs a database read.
  if (!OPERATOR_TOKEN.test(token)) return null;
  const hash = await sha256Hex(token);
  const row = await operatorByTokenHash(db, hash);
  // The row was found by its hash; the compare in constant time keeps that lookup the only test of it.
  if (row === null || !timingSafeEqualText(hash, row.token_hash) || row.revoked_at !== null) return null;
  return { id: row.id, name: row.name, role: row.role };
}
