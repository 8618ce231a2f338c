/**
 * D1 `timer_failures`: the operator's stuck list. One row per order: its timer that keeps failing, or
 * (timer `supplier`) its upstream lines whose outcome has stayed unknown past the budget. Only this
 * module writes it.
 */
import type { StuckTimer } from "./order-timers";

export interface TimerFailure {
  orderId: string;
  clientId: string;
  /** A timer kind, or `supplier` for lines whose supplier outcome is unknown past the budget. */
  timer: StuckTimer;
  /** The SKUs of those lines (`supplier` rows); empty for a failing timer. */
  skus: string[];
  failures: number;
  lastError: string;
  firstFailedAt: number;
  lastFailedAt: number;
  nextAttemptAt: number;
}

/**
 * The order's row names its worst failing timer, or its lines of unknown outcome. When that becomes
 * another timer of the order, the row starts over from this write (first_failed_at); while it is the same
 * timer, first_failed_at is kept. A `firstFailedAt` given (since when a line's outcome is unknown) is
 * written as it is.
 */
export async function recordTimerFailure(
  db: D1Database,
  failure: Omit<TimerFailure, "firstFailedAt" | "skus"> & { firstFailedAt?: number; skus?: string[] },
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO timer_failures (order_id, client_id, timer, failures, last_error, first_failed_at, last_failed_at, next_attempt_at, skus)
       VALUES (?1, ?2, ?3, ?4, ?5, COALESCE(?8, ?6), ?6, ?7, ?9)
       ON CONFLICT (order_id) DO UPDATE SET timer = ?3, failures = ?4, last_error = ?5, last_failed_at = ?6, next_attempt_at = ?7, skus = ?9,
         first_failed_at = COALESCE(?8, CASE WHEN timer_failures.timer = ?3 THEN timer_failures.first_failed_at ELSE ?6 END)`,
    )
    .bind(
      failure.orderId,
      failure.clientId,
      failure.timer,
      failure.failures,
      failure.lastError,
      failure.lastFailedAt,
      failure.nextAttemptAt,
      failure.firstFailedAt ?? null,
      failure.skus === undefined || failure.skus.length === 0 ? null : JSON.stringify(failure.skus),
    )
    .run();
}

export async function clearTimerFailure(db: D1Database, orderId: string): Promise<void> {
  await db.prepare(`DELETE FROM timer_failures WHERE order_id = ?1`).bind(orderId).run();
}

/** Failing orders by order id, after the cursor `after` (an order id), at most `rows` of them. */
export async function listTimerFailures(db: D1Database, after: string | null, rows: number): Promise<TimerFailure[]> {
  const { results } = await db
    .prepare(
      `SELECT order_id, client_id, timer, skus, failures, last_error, first_failed_at, last_failed_at, next_attempt_at
         FROM timer_failures WHERE order_id > ?1 ORDER BY order_id LIMIT ?2`,
    )
    .bind(after ?? "", rows)
    .all<Record<string, string | number | null>>();
  return results.map(timerFailureOf);
}

/** The order's row of the stuck list, or null when none of its timers is failing. */
export async function timerFailureOfOrder(db: D1Database, orderId: string): Promise<TimerFailure | null> {
  const row = await db
    .prepare(
      `SELECT order_id, client_id, timer, skus, failures, last_error, first_failed_at, last_failed_at, next_attempt_at
         FROM timer_failures WHERE order_id = ?1`,
    )
    .bind(orderId)
    .first<Record<string, string | number | null>>();
  return row === null ? null : timerFailureOf(row);
}

function timerFailureOf(row: Record<string, string | number | null>): TimerFailure {
  return {
    orderId: String(row.order_id),
    clientId: String(row.client_id),
    // The column holds only what recordTimerFailure wrote.
    timer: String(row.timer) as StuckTimer,
    skus: typeof row.skus === "string" ? (JSON.parse(row.skus) as string[]) : [],
    failures: Number(row.failures),
    lastError: String(row.last_error),
    firstFailedAt: Number(row.first_failed_at),
    lastFailedAt: Number(row.last_failed_at),
    nextAttemptAt: Number(row.next_attempt_at),
  };
}
