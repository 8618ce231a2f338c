/**
 * The operator's rules for exchange rates that zod cannot check alone, as pure functions: which pairs may
 * have a rate and what a rate may be. No I/O, so tests call them directly.
 */
import { Money } from "./money";

/** Why a pair of currencies cannot have a rate (a 400 invalid_parameters' reason), or null. */
export function pairProblem(base: string, target: string): string | null {
  return base === target ? "base and target currencies must differ" : null;
}

/** The rate as stored (a canonical decimal string), or the issues of a 400 invalid_request_body. */
export function canonicalRate(
  given: string | number,
): { ok: true; rate: string } | { ok: false; issues: { path: string; message: string }[] } {
  const rate = new Money(String(given));
  if (rate.lessThanOrEqualTo(0) || rate.decimalPlaces() > 12 || rate.greaterThan("1e12")) {
    return { ok: false, issues: [{ path: "rate", message: "a positive rate with at most 12 decimals" }] };
  }
  return { ok: true, rate: rate.toFixed() };
}
