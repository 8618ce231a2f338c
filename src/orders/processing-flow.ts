/**
 * The processing flow: a confirmed order is fulfilled line by line by each line's supplier, its failed
 * lines refunded, and it ends `successful`, `partial` or `failed`.
 */
import { dayOf } from "../books/shard-rules";
import { lineIdempotencyKey } from "../fulfilment/supplier";
import { releaseCodes } from "../inventory/reservation-store";
import { Money } from "../pricing/money";
import { refundKey } from "../wallets/ledger-keys";
import { applyOutcome, finalState, invoiceStatusAfter, nextAttemptAt } from "./processing-rules";
import type { OrderHost } from "./order-host";
import { tryFlushOutbox, type OutboxHost } from "./outbox-flow";
import { ORDER_SEAMS, supplierSeam } from "./seams";
import { transition } from "./transitions";

export type ProcessingHost = OutboxHost & Pick<OrderHost, "now" | "save" | "postCredit" | "supplier" | "db">;

/**
 * The `process` timer (confirm runs it at once). Every supplier call is idempotent per line (sandbox
 * codes are derived from the line, inventory codes are the ones sold to it, the upstream gets an
 * Idempotency-Key) and every refund has its own ledger key, so a run that dies anywhere and starts over
 * issues nothing twice and refunds nothing twice. What an outside supplier hands over is stored at once;
 * lines served here are stored with the end state.
 */
export async function processOrder(host: ProcessingHost): Promise<void> {
  let order = host.store.load();
  if (order === null) return;
  if (order.state === "confirmed") {
    order = transition(order, "processing", host.now());
    // Stored when a supplier may take a while, so that retrieve shows it; otherwise the order reaches
    // its end state within this run.
    if (order.lines.some((line) => line.status === "pending" && line.product.supplier === "upstream"))
      await host.save(order, "confirmed");
  }
  if (order.state !== "processing") return;
  let retryAt: number | null = null;
  for (const [index, line] of order.lines.entries()) {
    if (line.status !== "pending") continue;
    const request = {
      orderId: order.id,
      idempotencyKey: lineIdempotencyKey(order.id, line.sku),
      line,
      attempt: line.attempts + 1,
    };
    const outcome = await host.io(supplierSeam(line.product.supplier), () =>
      host.supplier(line.product.supplier).issue(request),
    );
    // An unknown outcome leaves the line pending (never failed, never refunded): it is asked again with the
    // same key until the supplier settles it; past its budget the stuck list shows it (stuck-report.ts).
    const now = host.now();
    const updated = applyOutcome(line, outcome, now);
    order = { ...order, lines: order.lines.map((other, at) => (at === index ? updated : other)), modifiedAt: now };
    if (line.product.supplier === "upstream") await host.save(order, order.state);
    if (updated.status === "pending") retryAt = Math.min(retryAt ?? Infinity, nextAttemptAt(updated, host.now()));
  }
  if (retryAt !== null) {
    await host.save(order, order.state, { process: retryAt });
    return;
  }
  for (const [index, line] of order.lines.entries()) {
    if (line.status !== "failed" || !new Money(line.refunded).isZero()) continue;
    const current = order;
    // To the wallet that holds the charge; one that has moved since passes the credit on to its successor.
    const refund = await host.postCredit(current, ORDER_SEAMS.walletRefund, {
      key: refundKey(current.id, line.sku),
      kind: "order_refund",
      amount: line.charge,
      orderId: current.id,
      reason: `${line.sku} could not be fulfilled`,
      orderDay: dayOf(current.createdAt),
    });
    if (!refund.ok) throw new Error(`refund of ${order.id} ${line.sku} refused: ${refund.code}`);
    order = {
      ...order,
      lines: order.lines.map((other, at) => (at === index ? { ...line, refunded: line.charge } : other)),
    };
  }
  // A done line holds nothing: codes a failed inventory line had reserved go back on sale.
  const current = order;
  if (current.lines.some((line) => line.product.supplier === "inventory")) {
    await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, current.id));
  }
  const end = finalState(order);
  if (end === null) return;
  const ended = { ...transition(order, end, host.now()), invoiceStatus: invoiceStatusAfter(order.lines) };
  // The processing timer goes with the end state, in the same write.
  if (await host.save(ended, order.state, { process: null })) await tryFlushOutbox(host);
}
