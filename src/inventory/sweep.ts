import { io } from "../kernel/faults";
import { log, logFailure } from "../kernel/log";
import { objectIdOf } from "../orders/order-id";
import type { OrderRecord } from "../orders/order-record";
import { audit } from "../audit/audit-log";

/**
 * The scheduled sweep (cron trigger in wrangler.toml): a safety net under the orders' own expiry timers.
 * It finds codes still `reserved` well after their `reserved_until`, asks each holding order what it is, and
 * puts back on sale what an order no longer needs: the order was never stored (its create failed after
 * reserving), or it is over (rejected, failed, partial, successful), or it is still `created` past its
 * expiry (its confirm already answers 419). A `confirmed` or `processing` order keeps its codes: processing
 * sells them.
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

const RELEASABLE = new Set<OrderRecord["state"]>(["rejected", "failed", "partial", "successful"]);

export interface SweptOrder {
  orderId: string;
  /** The order's state, or "missing" when no order is stored under the id. */
  state: OrderRecord["state"] | "missing";
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

type Verdict = { release: boolean; state: SweptOrder["state"] };

function verdictOn(record: OrderRecord | null, now: number): Verdict {
  if (record === null) return { release: true, state: "missing" };
  if (RELEASABLE.has(record.state)) return { release: true, state: record.state };
  if (record.state === "created" && record.expiresAt < now) return { release: true, state: record.state };
  return { release: false, state: record.state };
}

export async function sweepReservations(env: Env, now = Date.now(), runId = `sweep_${now}`): Promise<SweepReport> {
  const cutoff = now - SWEEP_GRACE_MS;
  const { results } = await io(SWEEP_SEAMS.findStale, () =>
    env.DB.prepare(
      `SELECT order_id FROM codes WHERE status = 'reserved' AND reserved_until < ?1
        GROUP BY order_id ORDER BY MIN(reserved_until) LIMIT ?2`,
    )
      .bind(cutoff, SWEEP_MAX_ORDERS)
      .all<{ order_id: string }>(),
  );
  const report: SweepReport = { cutoff, looked: results.length, released: 0, kept: 0, failed: 0, orders: [] };
  for (const { order_id: orderId } of results) {
    try {
      const objectId = objectIdOf(env.ORDERS, orderId);
      const record = objectId === null ? null : await io(SWEEP_SEAMS.orderRecord, () => env.ORDERS.get(objectId).record());
      const verdict = verdictOn(record, now);
      if (!verdict.release) {
        report.kept += 1;
        continue;
      }
      // The WHERE repeats the staleness test: a reservation renewed since the SELECT (a retried create)
      // is not touched.
      const { meta } = await io(SWEEP_SEAMS.release, () =>
        env.DB.prepare(
          `UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL
            WHERE order_id = ?1 AND status = 'reserved' AND reserved_until < ?2`,
        )
          .bind(orderId, cutoff)
          .run(),
      );
      report.released += meta.changes;
      report.orders.push({ orderId, state: verdict.state, released: meta.changes });
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
