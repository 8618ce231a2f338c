/**
 * The crash-safety invariants the fault matrix (test/crash/fault-matrix.test.ts) checks after every run,
 * listed in its opening comment: what one case touched, read back from the wallets, the orders, the codes,
 * the order index and the webhooks handed to the queue.
 */
import { env } from "cloudflare:workers";
import { bookedRow } from "../../src/books/books-reader";
import { bookWriteOf } from "../../src/books/row-rules";
import { Money } from "../../src/pricing/money";
import type { LedgerEntry } from "../../src/wallets/ledger";
import { chargeKey, refundKey, voidKey } from "../../src/wallets/ledger-keys";
import { wallet } from "../helpers";
import { holdsOf } from "../order-helpers";
import {
  AT_REST,
  CONFIRMED_STATES,
  codesHeldBy,
  drainProblems,
  handedToQueue,
  hooks,
  indexVersionOf,
  inspect,
  walletObjects,
} from "./fault-harness";

/** What a case leaves behind to check: the client and its wallet, and the orders it made or tried. */
export interface Outcome {
  clientId: string;
  currency: string;
  orderIds: string[];
  /** The order ids whose create was refused (no order stored): they must hold nothing. */
  refusedOrderIds?: string[];
  /** The state each order must end in. */
  expect: Record<string, string>;
  /** What the wallet must hold at the end, where a case knows it (a move must neither lose nor add). */
  total?: string;
}

/** Every invariant of crash safety for what one case touched; returns the violations found. */
export async function violations(outcome: Outcome): Promise<string[]> {
  const found: string[] = drainProblems.splice(0);
  const check = (ok: boolean, what: string) => {
    if (!ok) found.push(what);
  };
  found.push(...hooks.bad.splice(0).map((bad) => `webhook delivery did not verify: ${bad}`));
  // Every object the wallet has been, oldest first; the entries of all of them are the wallet's ledger.
  const objects = await walletObjects(outcome.clientId, outcome.currency);
  const entries: LedgerEntry[] = [];
  for (const [index, object] of objects.entries()) {
    const audit = await object.stub.audit();
    check(
      audit.balance === audit.ledgerSum,
      `generation ${object.generation}: balance ${audit.balance} != ledger sum ${audit.ledgerSum}`,
    );
    const own = await object.stub.entries(0, 10_000);
    check(
      own.every((entry) => !new Money(entry.balanceAfter).isNegative()),
      `generation ${object.generation}: a balance went below zero`,
    );
    entries.push(...own);
    const next = objects[index + 1];
    if (next === undefined) continue;
    check(audit.balance === "0", `generation ${object.generation} moved on but holds ${audit.balance}`);
    const arrived = await next.stub.entries(0, 10_000);
    for (const out of own.filter((entry) => entry.kind === "move_out")) {
      const taken = arrived.filter((entry) => entry.key === out.key);
      check(
        taken.length === 1 &&
          taken[0]!.kind === "move_in" &&
          new Money(taken[0]!.amount).equals(new Money(out.amount).negated()),
        `transfer ${out.key} of ${out.amount} arrived as ${JSON.stringify(taken.map((entry) => entry.amount))}`,
      );
    }
  }
  if (outcome.total !== undefined) {
    const total = objects.length === 0 ? new Money(0) : new Money(await objects.at(-1)!.stub.balance());
    check(total.equals(outcome.total), `the wallet holds ${total.toFixed()}, expected ${outcome.total}`);
  }

  for (const orderId of outcome.refusedOrderIds ?? []) {
    const { order, timers } = await inspect(orderId);
    check(order === null, `${orderId}: a refused create stored an order`);
    check(timers.length === 0, `${orderId}: a refused create left timers ${timers}`);
    check((await codesHeldBy(orderId)).length === 0, `${orderId}: a refused create holds codes`);
    for (const object of objects) {
      const holds = await holdsOf(outcome.clientId, outcome.currency, object.generation, object.region);
      check(
        !holds.includes(orderId),
        `${orderId}: a refused create still holds balance (generation ${object.generation})`,
      );
    }
    check(!entries.some((entry) => entry.orderId === orderId), `${orderId}: a refused create moved money`);
  }

  for (const orderId of outcome.orderIds) {
    const { order, timers, events } = await inspect(orderId);
    if (order === null) {
      found.push(`${orderId}: no order stored`);
      continue;
    }
    const want = outcome.expect[orderId];
    check(want === undefined || order.state === want, `${orderId}: state ${order.state}, expected ${want}`);
    const mine = entries.filter((entry) => entry.orderId === orderId);
    const charges = mine.filter((entry) => entry.key === chargeKey(orderId));
    const voids = mine.filter((entry) => entry.key === voidKey(orderId));
    if (CONFIRMED_STATES.has(order.state)) {
      check(
        charges.length === 1 && new Money(charges[0]!.amount).negated().equals(order.charge),
        `${orderId}: ${order.state} but charged ${JSON.stringify(charges.map((c) => c.amount))}`,
      );
      check(voids.length === 0, `${orderId}: confirmed and voided`);
    } else if (order.state === "rejected") {
      // The void is a mark beside the ledger; it is a ledger entry only where it gave back a charge.
      const purse = wallet(outcome.clientId, outcome.currency, order.walletGeneration ?? 0, order.walletRegion ?? null);
      check((await purse.chargeStatus(orderId)).status === "voided", `${orderId}: rejected without a void`);
      check(voids.length === charges.length, `${orderId}: ${charges.length} charges but ${voids.length} void credits`);
      const net = mine.reduce((sum, entry) => sum.plus(entry.amount), new Money(0));
      check(net.isZero(), `${orderId}: rejected but owes ${net.toFixed()}`);
      check(order.invoiceStatus === "void", `${orderId}: rejected with invoice ${order.invoiceStatus}`);
      // It can never be charged later: the wallet refuses its charge, whatever arrives.
      const late = await purse.post({ key: chargeKey(orderId), kind: "order_charge", amount: order.charge, orderId });
      check(
        !late.ok && late.code === "order_voided",
        `${orderId}: rejected, but a late charge answered ${JSON.stringify(late)}`,
      );
    } else {
      check(charges.length === 0 || Boolean(order.chargeIntentAt), `${orderId}: created but charged`);
    }
    // Refunds: exactly the failed lines, once each.
    for (const orderLine of order.lines) {
      const refunds = mine.filter((entry) => entry.key === refundKey(orderId, orderLine.sku));
      if (orderLine.status === "failed" && AT_REST.has(order.state)) {
        check(
          refunds.length === 1 && new Money(refunds[0]!.amount).equals(orderLine.charge),
          `${orderId}/${orderLine.sku}: failed line refunded ${refunds.length}×`,
        );
      } else {
        check(refunds.length === 0, `${orderId}/${orderLine.sku}: ${orderLine.status} line refunded`);
      }
    }
    // Codes: what the order holds is exactly what its open lines need; sold codes are its redeem.
    const held = await codesHeldBy(orderId);
    const lineSkus = new Set(order.lines.filter((l) => l.product.supplier === "inventory").map((l) => l.sku));
    const foreign = held.filter((code) => !lineSkus.has(code.sku));
    check(
      foreign.length === 0,
      `${orderId}: holds ${foreign.length} codes of SKUs it has no line for (${foreign.map((c) => `${c.sku} ${c.status}`)})`,
    );
    for (const orderLine of order.lines.filter((l) => l.product.supplier === "inventory")) {
      const reserved = held.filter((code) => code.sku === orderLine.sku && code.status === "reserved");
      const sold = held.filter((code) => code.sku === orderLine.sku && code.status === "sold");
      const open =
        orderLine.status === "pending" &&
        (order.state === "created" || CONFIRMED_STATES.has(order.state)) &&
        !AT_REST.has(order.state);
      check(
        reserved.length === (open ? orderLine.quantity : 0),
        `${orderId}/${orderLine.sku}: holds ${reserved.length} reserved, line ${orderLine.status}, order ${order.state}`,
      );
      const pins = orderLine.status === "fulfilled" ? (orderLine.redeem?.pins ?? []) : [];
      check(
        JSON.stringify(sold.map((code) => code.pin).sort()) === JSON.stringify([...pins].sort()),
        `${orderId}/${orderLine.sku}: sold ${sold.length} codes, redeem has ${pins.length}`,
      );
      check(
        orderLine.status !== "fulfilled" || sold.length === orderLine.quantity,
        `${orderId}/${orderLine.sku}: fulfilled with ${sold.length} codes`,
      );
    }
    // Holds: an order that is no longer open holds nothing of the balance.
    if (order.state !== "created") {
      for (const object of objects) {
        const holds = await holdsOf(outcome.clientId, outcome.currency, object.generation, object.region);
        check(
          !holds.includes(orderId),
          `${orderId}: ${order.state} but still holds balance (generation ${object.generation})`,
        );
      }
    }
    // Timers: an order at rest has none; an order that is not has the one that moves it on.
    if (AT_REST.has(order.state))
      check(timers.length === 0, `${orderId}: at rest (${order.state}) with timers ${timers}`);
    if (order.state === "created") check(timers.includes("expire"), `${orderId}: created without its expiry timer`);
    if (order.state === "confirmed" || order.state === "processing")
      check(timers.includes("process"), `${orderId}: ${order.state} without its processing timer`);
    // Books: an order whose `index` timer has run (every order at rest: it has no timer left) has its row
    // in its client's books, written by itself, with its state, amounts, lines and the version it is at.
    if (!timers.includes("index")) {
      const row = await bookedRow(env, order);
      const want = bookWriteOf(order, await indexVersionOf(orderId));
      check(
        row !== null &&
          row.state === want.state &&
          row.total === want.total &&
          row.charged === want.charged &&
          row.refunded === want.refunded &&
          JSON.stringify(row.lines) === JSON.stringify(want.lines) &&
          row.version === want.version,
        `${orderId}: ${order.state} (charged ${want.charged}, refunded ${want.refunded}, version ${want.version}) but booked as ${JSON.stringify(row)}`,
      );
    }
    // Webhooks: one event per stored transition it announces, each handed to the queue.
    if (order.webhookUrl !== null) {
      const wantEvents = [
        ...(CONFIRMED_STATES.has(order.state) ? ["order.confirmed"] : []),
        ...(AT_REST.has(order.state) ? [`order.${order.state}`] : []),
      ];
      check(
        JSON.stringify(events.map((e) => e.type)) === JSON.stringify(wantEvents),
        `${orderId}: events ${events.map((e) => e.type)}, expected ${wantEvents}`,
      );
      check(
        events.every((e) => e.sent),
        `${orderId}: an event was never handed to the queue`,
      );
      for (const event of events) if (event.sent) handedToQueue.add(event.eventId);
    }
  }
  // A code is held by at most one order: order_id is one column, so that holds by construction; what
  // can go wrong is a code sold to nobody.
  const strays = await env.DB.prepare(
    `SELECT COUNT(*) AS n FROM codes WHERE status != 'available' AND order_id IS NULL`,
  ).first<{ n: number }>();
  check(strays!.n === 0, `${strays!.n} codes reserved or sold to no order`);
  return found;
}
