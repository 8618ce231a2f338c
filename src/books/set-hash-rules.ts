/**
 * The order-independent hash of a set of pairs (docs/books.md, "For the reconciliation by wallet and day"):
 * what the books keep of a day's (order, charged), (order, refunded) and (code, order) pairs, and what the
 * wallet's ledger and the codes table will be summarised with, so that both sides hash identically.
 *
 * Each pair's canonical text is hashed with SHA-256 and its first 8 bytes read as an unsigned 64-bit
 * integer; a set's hash is the sum of its members' modulo 2^64. The sum does not depend on the order the
 * members came in, and a member is taken out exactly as it was put in. A cryptographic hash, not a fast
 * one: a person who changes one pair cannot pick another that restores the sum without about 2^64 work.
 * Pure (but asynchronous: the platform's SHA-256 is).
 */
import { Money } from "../pricing/money";

/** What a pair is: an order's charge, an order's refunds, or a code delivered in an order. */
export type PairKind = "charge" | "refund" | "code";

/** An amount as the pairs take it: its canonical decimal ("12.50" and "12.5" are one amount). */
export function canonicalAmount(amount: string): string {
  return new Money(amount).toFixed();
}

/** The text hashed for a pair: kind, then its two members, each on a line of its own. */
export function pairText(kind: PairKind, first: string, second: string): string {
  return `${kind}\n${first}\n${second}`;
}

const MASK = (1n << 64n) - 1n;

/** The 64-bit hash of one pair: the first 8 bytes of the SHA-256 of its text, big-endian. */
export async function pairHash(kind: PairKind, first: string, second: string): Promise<bigint> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pairText(kind, first, second)));
  return new DataView(digest).getBigUint64(0, false);
}

/** The hash of an (order, amount) pair: an amount of 0 is no member (the set holds what moved money). */
export async function amountHash(kind: "charge" | "refund", orderId: string, amount: string): Promise<bigint> {
  return new Money(amount).isZero() ? 0n : pairHash(kind, orderId, canonicalAmount(amount));
}

/** The hash of the set of (code, order) pairs of an order's codes. */
export async function codesHash(orderId: string, codes: readonly string[]): Promise<bigint> {
  let sum = 0n;
  for (const code of codes) sum = addHash(sum, await pairHash("code", code, orderId));
  return sum;
}

export function addHash(sum: bigint, member: bigint): bigint {
  return (sum + member) & MASK;
}

export function subtractHash(sum: bigint, member: bigint): bigint {
  return (sum - member) & MASK;
}

/** A set's hash as stored: 16 hex digits. */
export function hashText(sum: bigint): string {
  return sum.toString(16).padStart(16, "0");
}

export function hashOf(text: string): bigint {
  return BigInt(`0x${text}`);
}

/** The hash of the empty set. */
export const ZERO_HASH = hashText(0n);
