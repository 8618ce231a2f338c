import { io } from "../kernel/faults";
import { log, logFailure } from "../kernel/log";
import { audit } from "../audit/audit-log";
import { releaseStale, staleHolders } from "./reservations";

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
/** Orders looked at per run; the next run (minutes later) takes the rest. */
export const SWEEP_MAX_ORDERS = 50;

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
}

export async function sweepReservations(env: Pick<Env, "DB">, askHolder: AskHolder, now = Date.now(), runId = `sweep_${now}`): Promise<SweepReport> {
  const cutoff = now - SWEEP_GRACE_MS;
  const holders = await io(SWEEP_SEAMS.findStale, () => staleHolders(env.DB, cutoff, SWEEP_MAX_ORDERS));
  const report: SweepReport = { cutoff, looked: holders.length, released: 0, kept: 0, failed: 0, orders: [] };
  for (const orderId of holders) {
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
  if (report.released > 0) {
    try {
      await io(SWEEP_SEAMS.audit, () =>
        audit(env.DB, { label: "system:sweep", requestId: runId }, "inventory.reservations_released", "codes", {
          cutoff,
          released: report.released,
          orders: report.orders,
        }),
      );
    } catch (error) {
      logFailure(error, { step: "sweep.audit", requestId: runId });
    }
  }
  log(report.failed > 0 ? "warn" : "info", "inventory sweep", { step: "sweep", requestId: runId, ...report });
  return report;
}
