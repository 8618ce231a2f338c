/**
 * The order's timers: the work its one alarm stands for, as a list kept in the order's document
 * (src/orders/order-store.ts). Pure rules over that list; the store writes what they return.
 */
import { timerRetryDelayMs } from "./timer-policy";

import type { OrderRecord } from "./order-record";

/**
 * Work the order's alarm stands for; each kind has at most one due time. `report` is set only while the
 * operator's stuck list could not be brought up to date, to try again (see stuck-report.ts); `index` while
 * a change of the order is not yet in the order index (index-flow.ts).
 */
export type TimerKind = "expire" | "process" | "outbox" | "settle" | "report" | "index";

/**
 * How long after a change the order writes its row to the order index. Changes meanwhile ride on the same
 * write (a create confirmed and fulfilled within it writes one row, not three), and the index stays well
 * within its 10 s bound (docs/operator-api.md, "The order index").
 */
export const INDEX_DELAY_MS = 2_000;

/**
 * Whether `next` shows differently in the order index than `previous` (null: a new order); pure. Its time
 * alone does not count: an upstream line asked again moves `modifiedAt` and nothing the index shows.
 */
export function changesIndexRow(previous: OrderRecord | null, next: OrderRecord): boolean {
  if (previous === null) return true;
  if (
    previous.state !== next.state ||
    previous.charge !== next.charge ||
    previous.expiresAt !== next.expiresAt ||
    previous.lines.length !== next.lines.length
  )
    return true;
  return next.lines.some((line, at) => {
    const before = previous.lines[at]!;
    return before.status !== line.status || before.refunded !== line.refunded || before.charge !== line.charge;
  });
}

/**
 * Whether a write to the books is already due among `timers` at `now`, so that a change rides on it. An
 * `index` timer past its time that has not failed may be one whose write is done (its removal is not
 * stored: index-flow.ts): a change then sets its own, INDEX_DELAY_MS ahead, rather than write at once.
 */
export function indexWriteDue(timers: readonly Timer[], now: number): boolean {
  const index = timers.find((timer) => timer.kind === "index");
  return index !== undefined && (index.dueAt >= now || index.failures > 0);
}

export interface Timer {
  kind: TimerKind;
  dueAt: number;
  /** Runs of this timer that failed in a row; 0 once it succeeds. */
  failures: number;
  lastError: string | null;
}

/** What a row of the stuck list names: a timer that keeps failing (never `report`), or `supplier`. */
export type StuckTimer = Exclude<TimerKind, "report"> | "supplier";

/** A timer the stuck list may name: any but `report`, which only retries the report itself. */
type Reported = Timer & { kind: Exclude<TimerKind, "report"> };

function isReported(timer: Timer): timer is Reported {
  return timer.kind !== "report";
}

/**
 * What the operator's stuck list (D1 timer_failures) holds for the order: its worst failing timer, or
 * (`supplier`) its upstream lines whose outcome has stayed unknown past the budget, with their SKUs.
 */
export interface StuckReport {
  timer: StuckTimer;
  failures: number;
  skus?: string[];
}

/** Whether the stuck list, having been given `reported`, already shows `wanted` (null: no row). */
export function sameReport(reported: StuckReport | null, wanted: StuckReport | null): boolean {
  if (reported === null || wanted === null) return reported === wanted;
  return (
    reported.timer === wanted.timer &&
    reported.failures === wanted.failures &&
    (reported.skus ?? []).join("\n") === (wanted.skus ?? []).join("\n")
  );
}

/** Due order, then kind: the first timer of a sorted list is the one the alarm is set to. */
export function byDueTime(a: Timer, b: Timer): number {
  return a.dueAt - b.dueAt || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);
}

/** The timers with `kind` due at `at` (a failing timer keeps its count of failures), in due order. */
export function scheduled(timers: readonly Timer[], kind: TimerKind, at: number): Timer[] {
  const current = timers.find((timer) => timer.kind === kind);
  const next: Timer = { kind, dueAt: at, failures: current?.failures ?? 0, lastError: current?.lastError ?? null };
  return [...timers.filter((timer) => timer.kind !== kind), next].sort(byDueTime);
}

export function without(timers: readonly Timer[], kind: TimerKind): Timer[] {
  return timers.filter((timer) => timer.kind !== kind);
}

/**
 * The timers after `ran` ran: it goes, unless it was set again meanwhile (a handler that rescheduled
 * itself), and then it is no longer failing. Null when nothing changes.
 */
export function afterRun(timers: readonly Timer[], ran: Timer): Timer[] | null {
  const current = timers.find((other) => other.kind === ran.kind);
  if (current === undefined) return null;
  if (current.dueAt === ran.dueAt) return without(timers, ran.kind);
  if (current.failures > 0)
    return timers.map((other) => (other === current ? { ...current, failures: 0, lastError: null } : other));
  return null;
}

/**
 * The timers after a run of `kind` failed at `now`: one more failure counted, and due again after the
 * retry delay of that count (src/orders/timer-policy.ts), even if the failed handler had cleared it, so
 * that a failure never drops a timer.
 */
export function afterFailure(
  timers: readonly Timer[],
  kind: TimerKind,
  now: number,
  error: string,
): { timers: Timer[]; failed: Timer } {
  const failures = (timers.find((timer) => timer.kind === kind)?.failures ?? 0) + 1;
  const failed: Timer = { kind, dueAt: now + timerRetryDelayMs(failures), failures, lastError: error };
  return { timers: [...without(timers, kind), failed].sort(byDueTime), failed };
}

/**
 * The timer that has failed most often in a row, at least `threshold` times (the earlier due on a tie),
 * or null. The `report` timer does not count: it only retries the report itself.
 */
export function worstFailing(timers: readonly Timer[], threshold: number): Reported | null {
  let worst: Reported | null = null;
  for (const timer of timers) {
    if (isReported(timer) && timer.failures >= threshold && (worst === null || timer.failures > worst.failures))
      worst = timer;
  }
  return worst;
}
