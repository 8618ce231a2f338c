/**
 * The stuck report: after every timer run the operator's stuck list (D1 timer_failures, one row per
 * order) is brought in line with the order.
 */
import { logFailure } from "../kernel/log";
import { linesPastBudget } from "./processing-rules";
import type { OrderHost } from "./order-host";
import { sameReport, type StuckReport } from "./order-timers";
import { ORDER_SEAMS } from "./seams";
import { clearTimerFailure, recordTimerFailure } from "./timer-failure-store";
import { TIMER_FAILURES_REPORTED_AFTER } from "./timer-policy";

export type ReportHost = Pick<OrderHost, "orderId" | "store" | "now" | "io" | "db" | "unknownBudgetMs">;

/**
 * The row names the order's upstream lines whose outcome has been unknown for UPSTREAM_UNKNOWN_BUDGET_SECONDS
 * or more (timer `supplier`: they need a person, and the order keeps asking meanwhile), or else the timer
 * that has failed most often in a row, once that is at least TIMER_FAILURES_REPORTED_AFTER times; there is
 * no row while neither holds, however it went away (the line was settled, the timer succeeded, a confirm
 * cleared it). The document keeps what the list was last given, so a run that changes nothing there writes
 * nothing to D1. A report that fails is retried by the `report` timer, so that a row is not left behind, or
 * missing, when the order comes to rest.
 */
export async function reportStuck(host: ReportHost): Promise<void> {
  const { store } = host;
  const order = store.load();
  const now = host.now();
  const unknown = order?.state === "processing" ? linesPastBudget(order.lines, host.unknownBudgetMs, now) : [];
  const failing = unknown.length > 0 ? null : store.worstFailing(TIMER_FAILURES_REPORTED_AFTER);
  const wanted: StuckReport | null =
    unknown.length > 0
      ? { timer: "supplier", failures: unknown[0]!.attempts, skus: unknown.map((line) => line.sku) }
      : failing === null
        ? null
        : { timer: failing.kind, failures: failing.failures };
  const reported = store.reported();
  if (reported !== undefined && sameReport(reported, wanted)) {
    // The list already shows what it should: a retry of an earlier write that failed has nothing left to
    // write, and must not stay behind (it would keep the alarm firing for an order at rest).
    store.clearTimer("report");
    return;
  }
  const orderId = order?.id ?? host.orderId;
  const row =
    wanted === null
      ? null
      : unknown.length > 0
        ? {
            lastError: unknown.map((line) => `${line.sku}: ${line.failureReason ?? "no answer"}`).join("; "),
            firstFailedAt: unknown[0]!.unknownSince!,
            nextAttemptAt: store.timers().find((timer) => timer.kind === "process")?.dueAt ?? now,
          }
        : { lastError: failing!.lastError ?? "", nextAttemptAt: failing!.dueAt };
  try {
    await host.io(ORDER_SEAMS.timerReport, () =>
      wanted === null || row === null
        ? clearTimerFailure(host.db, orderId)
        : recordTimerFailure(host.db, {
            orderId,
            clientId: order?.clientId ?? "",
            timer: wanted.timer,
            skus: wanted.skus,
            failures: wanted.failures,
            lastFailedAt: now,
            ...row,
          }),
    );
    store.markReported(wanted);
  } catch (error) {
    // Only the report failed; the timers themselves are stored and retried either way.
    const failed = store.failTimer("report", host.now(), String(error));
    logFailure(error, { step: "timer.report", orderId, clientId: order?.clientId, failures: failed.failures });
  }
}
