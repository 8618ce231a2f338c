import { io } from "../kernel/faults";
import { log, logFailure } from "../kernel/log";
import { audit } from "../audit/audit-store";
import { releaseStale, staleHolders, type StaleHolder } from "./reservation-store";

/**
 * The scheduled sweep (cron trigger in wrangler.toml): a safety net under the orders' own expiry timers.
 * It finds codes still `reserved` well after their `reserved_until`, asks each holding order whether it
 * still needs them (the question is the orders' to answer: src/orders/reservation-verdict.ts, handed in by
 * src/index.ts), and puts back on sale what an order no longer needs.
 */

/** Every I/O call of the sweep goes through one of these seams (src/kernel/faults.ts). */
export const SWEEP_SEAMS = {
  findStale: "sweep.find-stale",
  orderRecord: "sweep.order-record",
  release: "sweep.release",
  audit: "sweep.audit",
} as const;

/** How long past `reserved_until` a reservation must be before the sweep looks at it. */
export const SWEEP_GRACE_MS = 5 * 60_000;
/** Orders whose codes one run releases; the next run (minutes later) takes the rest. */
export const SWEEP_MAX_ORDERS = 50;
/**
 * Orders one run asks, the ones it keeps included. Kept orders (confirmed or processing) come first when they
 * are the longest overdue, so the run pages past them instead of stopping at SWEEP_MAX_ORDERS of them; this
 * bounds the order-object calls of one run when many orders are stuck in processing at once.
 */
export const SWEEP_MAX_ASKS = 10 * SWEEP_MAX_ORDERS;
/** Holders read per D1 query. */
const SWEEP_PAGE = 50;

/** What the holder of stale reservations answers: may its codes go back on sale, and what it is (for the report). */
export interface HolderVerdict {
  release: boolean;
  /** The order's state, or "missing" when no order is stored under the id. */
  state: string;
}

/** Asks the order `orderId` at `now` whether it still needs the codes it holds. */
export type AskHolder = (orderId: string, now: number) => Promise<HolderVerdict>;

export interface SweptOrder {
  orderId: string;
  state: string;
  released: number;
}

export interface SweepReport {
  cutoff: number;
  looked: number;
  released: number;
  kept: number;
  failed: number;
  orders: SweptOrder[];
  /**
   * Why the run stopped before the last stale holder: it released SWEEP_MAX_ORDERS orders' codes ("orders")
   * or asked SWEEP_MAX_ASKS orders ("asks"); null when it looked at every one.
   */
  stoppedBy: "orders" | "asks" | null;
}

export async function sweepReservations(
  env: Pick<Env, "DB">,
  askHolder: AskHolder,
  now = Date.now(),
  runId = `sweep_${now}`,
): Promise<SweepReport> {
  const cutoff = now - SWEEP_GRACE_MS;
  const report: SweepReport = { cutoff, looked: 0, released: 0, kept: 0, failed: 0, orders: [], stoppedBy: null };
  let after: StaleHolder | undefined;
  pages: for (;;) {
    const wanted = Math.min(SWEEP_PAGE, SWEEP_MAX_ASKS - report.looked);
    const page = await io(SWEEP_SEAMS.findStale, () => staleHolders(env.DB, cutoff, wanted, after));
    for (const { orderId } of page) {
      if (report.orders.length >= SWEEP_MAX_ORDERS) {
        report.stoppedBy = "orders";
        break pages;
      }
      report.looked += 1;
      try {
        const verdict = await io(SWEEP_SEAMS.orderRecord, () => askHolder(orderId, now));
        if (!verdict.release) {
          report.kept += 1;
          continue;
        }
        const released = await io(SWEEP_SEAMS.release, () => releaseStale(env.DB, orderId, cutoff));
        report.released += released;
        report.orders.push({ orderId, state: verdict.state, released });
      } catch (error) {
        report.failed += 1;
        logFailure(error, { step: "sweep.order", requestId: runId, orderId });
      }
    }
    if (page.length < wanted) break;
    if (report.looked >= SWEEP_MAX_ASKS) {
      report.stoppedBy = "asks";
      break;
    }
    // Released holders drop out of the table; the kept and the failed stay, and the next page starts after them.
    after = page.at(-1);
  }
  if (report.released > 0) {
    try {
      await io(SWEEP_SEAMS.audit, () =>
        audit(
          env.DB,
          { actor: { kind: "system", name: "sweep" }, requestId: runId },
          "inventory.reservations_released",
          "codes",
          {
            cutoff,
            released: report.released,
            orders: report.orders,
          },
        ),
      );
    } catch (error) {
      logFailure(error, { step: "sweep.audit", requestId: runId });
    }
  }
  // Kept orders filling the whole budget of asks means many orders sit in processing: worth a look.
  log(report.failed > 0 || report.stoppedBy === "asks" ? "warn" : "info", "inventory sweep", {
    step: "sweep",
    requestId: runId,
    ...report,
  });
  return report;
}
