/**
 * Checking a set of wallet-days and what the checks leave stored (docs/operator-api.md, Reconciliation):
 * each day checked on its own (day-check.ts), a few at once, then each day's decision (sealed with its
 * re-verifications to come, settling, or disagreeing) and its findings, replacing what earlier checks of
 * that day found. The pass (reconciliation.ts) and the queue's consumer (day-queue.ts) both run days here.
 */
import { checkDay, type DayOutcome } from "./day-check";
import {
  dayKey,
  largeDayAlert,
  nextVerification,
  SETTLE_RECHECK_MS,
  unsettledAlert,
  type WalletDay,
} from "./day-rules";
import { registryOf, type ReconcileEnv } from "./day-sources";
import { dayFindingStatements, dayStatement, type DayDecision, type DueDay } from "./day-store";
import { noneChecked, type Checked } from "./reconciliation-rules";

/** Days checked at once. */
const DAYS_AT_ONCE = 4;

export interface CheckedDay {
  day: DueDay;
  outcome: DayOutcome;
}

/** When the checks run, and what changed after `settledBy` may still be on its way. */
export interface Clock {
  now: number;
  settledBy: number;
}

export async function checkDays(env: ReconcileEnv, days: readonly DueDay[], clock: Clock): Promise<CheckedDay[]> {
  const registry = await registryOf(env.DB, days);
  const checked: CheckedDay[] = [];
  for (let start = 0; start < days.length; start += DAYS_AT_ONCE)
    await Promise.all(
      days.slice(start, start + DAYS_AT_ONCE).map(async (day) => {
        const outcome = await checkDay(
          env,
          day,
          registry,
          { state: day.state, seal: day.why === "verify" ? day.seal : null, firstSeenAt: day.firstSeenAt ?? clock.now },
          clock,
        );
        checked.push({ day, outcome });
      }),
    );
  return checked;
}

/** The alert lines of checked days: a day too large for one check, a day drilled before it settled. */
export function dayAlerts(days: readonly CheckedDay[], now: number): string[] {
  const alerts: string[] = [];
  for (const { day, outcome } of days) {
    if (!outcome.whole) alerts.push(largeDayAlert(day, outcome.large.join("; ")));
    if (outcome.forced > 0) alerts.push(unsettledAlert(day, day.firstSeenAt ?? now, now));
  }
  return alerts;
}

/** What the checks counted, all together. */
export function sumChecked(all: readonly Checked[]): Checked {
  const total = noneChecked();
  for (const one of all) for (const field of Object.keys(total) as (keyof Checked)[]) total[field] += one[field];
  return total;
}

/** What a day's check leaves stored: sealed (with its re-verifications to come), settling, or disagreeing. */
export function decisionOf(day: DueDay, outcome: DayOutcome, now: number): DayDecision {
  const sealed = outcome.state === "sealed";
  const verified = day.why === "verify" ? day.verified + 1 : day.state === "sealed" && sealed ? day.verified : 0;
  return {
    state: outcome.state,
    booksChanges: day.booksChanges,
    firstSeenAt: outcome.state === "open" ? (day.firstSeenAt ?? now) : now,
    checkedAt: now,
    dueAt: sealed ? null : now + SETTLE_RECHECK_MS,
    verifyAt: sealed ? nextVerification(now, verified) : null,
    verified,
    seal: sealed ? (day.why === "verify" && day.seal !== null ? day.seal : outcome.summaries) : null,
  };
}

/** Each checked day's decision and findings, as D1 statements (the caller batches them). */
export function checkedDayStatements(db: D1Database, days: readonly CheckedDay[], now: number): D1PreparedStatement[] {
  return days.flatMap(({ day, outcome }) => [
    dayStatement(db, day, decisionOf(day, outcome, now)),
    ...dayFindingStatements(db, dayKey(day as WalletDay), outcome.findings.all(), now),
  ]);
}
