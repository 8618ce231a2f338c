/**
 * The low-balance alert, pure (docs/api.md, "Events"): `wallet.low` fires when a balance goes below the
 * client's threshold while the alert is armed, at most once per 24 hours; a balance at or above the
 * threshold arms it again. The wallet decides inside the transaction that changes the balance, so two
 * charges one after the other (a wallet runs one at a time) cannot both fire it or both miss it.
 */
import { Money } from "../pricing/money";

export const ALERT_QUIET_MS = 24 * 60 * 60 * 1000;

/** The alert as the wallet keeps it. */
export interface BalanceAlert {
  clientId: string;
  currency: string;
  threshold: string;
  /** Whether a fall below the threshold fires (the balance was at or above it since the last fall). */
  armed: boolean;
  firedAt: number | null;
}

/** What a balance of `balance` at `now` does to the alert: whether it fires, and the alert after it. */
export function afterBalance(
  alert: BalanceAlert,
  balance: Money,
  now: number,
): { fires: boolean; alert: BalanceAlert } {
  const below = balance.lessThan(alert.threshold);
  if (!below) return { fires: false, alert: alert.armed ? alert : { ...alert, armed: true } };
  if (!alert.armed) return { fires: false, alert };
  // A fall below while armed: one crossing, which fires unless the last one fired within 24 hours.
  const fires = alert.firedAt === null || now - alert.firedAt >= ALERT_QUIET_MS;
  return { fires, alert: { ...alert, armed: false, firedAt: fires ? now : alert.firedAt } };
}

/** A new threshold: armed when the balance is at or above it (setting it below the balance is no crossing). */
export function newAlert(
  owner: { clientId: string; currency: string },
  threshold: string,
  balance: Money,
  previous: BalanceAlert | null,
): BalanceAlert {
  return {
    ...owner,
    threshold,
    armed: !balance.lessThan(threshold),
    firedAt: previous?.firedAt ?? null,
  };
}

/** Whether the alert changed (a row to write). */
export function alertChanged(before: BalanceAlert, after: BalanceAlert): boolean {
  return before.armed !== after.armed || before.firedAt !== after.firedAt || before.threshold !== after.threshold;
}
