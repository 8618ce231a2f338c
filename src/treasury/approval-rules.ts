/**
 * Dual control's rules, pure (docs/operator-api.md, Dual control): the limit a currency has in each mode,
 * which change of a limit waits for a second admin, the window each credential's postings are counted in,
 * how long a request waits and what state it is in. Who may decide a request is colleague-rules.ts's
 * (src/operators), as it judges operators by who made them.
 */
import { fitsMinorUnits, minorUnits, Money } from "../pricing/money";

/** How long a posting request waits for a decision: a request nobody decided within this expires. */
export const POSTING_REQUEST_TTL_MS = 24 * 60 * 60 * 1000;

/** What one credential may move alone in a currency is counted over this much time, up to the limit. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * The limit a currency has, as a decimal string, or null for none. In live a currency without a stored
 * limit fails closed: its limit is 0, so every posting in it waits for a second person. In the sandbox it
 * has none, and its postings go through alone as they always did.
 */
export function effectiveLimit(stored: string | null, live: boolean): string | null {
  return stored ?? (live ? "0" : null);
}

/**
 * What a change of a currency's limit from `current` (its effective limit, null: none) to `asked` (null:
 * none) is: lowering takes effect at once; raising it (from none in live too, as none is 0 there) or
 * removing it waits for a second admin; asking for what it is changes nothing.
 */
export function limitChange(current: string | null, asked: string | null): "same" | "lower" | "raise" {
  if (current === null) return asked === null ? "same" : "lower";
  if (asked === null) return "raise";
  const from = new Money(current);
  if (from.equals(asked)) return "same";
  return new Money(asked).lessThan(from) ? "lower" : "raise";
}

/**
 * An amount's absolute value in its currency's minor units, as an integer's decimal text (beyond a JS
 * number's exact range, so SQLite is handed text to cast): what a window is summed in, exactly. Rounded
 * up: an amount finer than the currency's minor units (a restore's, say) counts at least in full.
 */
export function minorOf(amount: string, currency: string): string {
  const units = new Money(amount).abs().times(new Money(10).pow(minorUnits(currency)));
  return units.ceil().toFixed(0);
}

/** Whether a limit is one the currency can express: positive, with at most its minor units. */
export function limitFits(limit: string, currency: string): boolean {
  const amount = new Money(limit);
  return amount.greaterThan(0) && fitsMinorUnits(amount, currency);
}

export type StoredStatus = "pending" | "approved" | "rejected" | "failed" | "posted";
export type RequestStatus = Exclude<StoredStatus, "posted"> | "expired";

/** A limit request is never posted nor failed: it only sets a limit. */
type LimitStatus = Exclude<StoredStatus, "posted" | "failed">;

/** A request's state at `now`: a pending one past its expiry is expired. */
export function requestStatus(stored: LimitStatus, expiresAt: number, now: number): LimitStatus | "expired";
export function requestStatus(stored: StoredStatus, expiresAt: number, now: number): RequestStatus;
export function requestStatus(stored: StoredStatus, expiresAt: number, now: number): RequestStatus {
  if (stored === "posted") return "approved";
  return stored === "pending" && now >= expiresAt ? "expired" : stored;
}
