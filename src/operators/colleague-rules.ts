/**
 * When two credentials are two people, as dual control needs them to be (docs/operator-api.md, Dual
 * control): pure rules over who made each operator and when. A credential is `operator:<id>` or the
 * break-glass token (kernel/roles.ts, credentialOf).
 *
 * Nothing can tell a person from an operator that person made, so the rules judge by making: an operator
 * is part of whoever made it for its first day (its makers answer for what it moves then, and it decides
 * nothing asked in that day), an operator never decides for the credential that made it (directly, or
 * through operators made in their first day), nor for the one it made, nor for an operator made by the
 * same credential within a day of it.
 */
import { BREAK_GLASS } from "../kernel/roles";

/** An operator's first day: it answers to its makers, and decides nothing asked before it is over. */
export const FIRST_DAY_MS = 24 * 60 * 60 * 1000;

/** Operators made by one credential less than this apart are taken to be one person's. */
export const MINTED_TOGETHER_MS = 24 * 60 * 60 * 1000;

/** A credential as the rules see it. */
export interface Colleague {
  credential: string;
  /** When the operator was made; null for the break-glass token. */
  createdAt: number | null;
  /**
   * Who made it, nearest first: its creator, then its creator's makers when the creator was in its own
   * first day then. Empty for the break-glass token and for an operator made before makers were kept.
   */
  makers: readonly string[];
  /**
   * When the first operator of its chain of makers was made by the chain's root (the last maker): its own
   * `createdAt` when its creator was not in its first day. Null where `makers` is empty.
   */
  mintedAt: number | null;
}

/** The break-glass token as a colleague: made by nobody, and never anyone's first day. */
export const BREAK_GLASS_COLLEAGUE: Colleague = {
  credential: BREAK_GLASS,
  createdAt: null,
  makers: [],
  mintedAt: null,
};

/** Whether an operator made at `createdAt` is in its first day at `at`. */
export function inFirstDay(createdAt: number | null, at: number): boolean {
  return createdAt !== null && at - createdAt < FIRST_DAY_MS;
}

/** The makers of an operator `creator` makes at `now`: the creator, and its own makers while it is in its first day. */
export function makersOf(creator: Colleague, now: number): string[] {
  return [creator.credential, ...(inFirstDay(creator.createdAt, now) ? creator.makers : [])];
}

/** The makers column: credentials between spaces (` operator:opr_1 break-glass `), so that SQL finds one with instr. */
export function makersColumn(makers: readonly string[]): string | null {
  return makers.length === 0 ? null : ` ${makers.join(" ")} `;
}

export function makersOfColumn(column: string | null): string[] {
  return column === null ? [] : column.split(" ").filter((credential) => credential.length > 0);
}

/** The credentials a move by `mover` at `at` counts against: its own, and its makers' in its first day. */
export function answerableFor(mover: Colleague, at: number): string[] {
  return [mover.credential, ...(inFirstDay(mover.createdAt, at) ? mover.makers : [])];
}

/**
 * Why `decider` may not decide what `requester` asked for at `requestedAt`, or null when it may. The
 * break-glass token names no person, so it decides nothing; neither does the requester, an operator the
 * requester made or that made the requester, an operator made by the same credential within a day of the
 * requester, nor one made less than a day before the request (so recently that whoever asked could have
 * made it for the purpose).
 */
export function colleagueProblem(decider: Colleague, requester: Colleague, requestedAt: number): string | null {
  if (decider.credential === BREAK_GLASS) return "the break-glass ADMIN_TOKEN names no person: a named operator must";
  if (decider.credential === requester.credential) return "the operator who asked cannot decide it";
  if (decider.makers.includes(requester.credential)) return "an operator cannot decide for the credential that made it";
  if (requester.makers.includes(decider.credential)) return "an operator cannot decide for an operator it made";
  if (mintedTogether(decider, requester))
    return `made by ${decider.makers.at(-1)} within a day of the operator who asked: taken to be one person's`;
  if (decider.createdAt === null || decider.createdAt > requestedAt - FIRST_DAY_MS)
    return "made less than a day before the request: whoever asked could have made it";
  return null;
}

function mintedTogether(a: Colleague, b: Colleague): boolean {
  if (a.makers.length === 0 || b.makers.length === 0 || a.mintedAt === null || b.mintedAt === null) return false;
  return a.makers.at(-1) === b.makers.at(-1) && Math.abs(a.mintedAt - b.mintedAt) < MINTED_TOGETHER_MS;
}
