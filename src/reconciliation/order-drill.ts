/**
 * The drill into a wallet-day that disagrees (docs/operator-api.md, Reconciliation): each order of the day
 * whose two sides differ is checked on its own, against the order object itself (the source of truth): its
 * charge (`charge_for_delivery`), its books row (`index_matches_order`), its movements in every object its
 * wallet has been (`ledger_matches_order`), its codes (`codes_match_redeem`), or that it is no order at all
 * (`unknown_order`). Only the orders of that wallet and day are read, a few at once.
 */
import { bookedRow } from "../books/books-reader";
import { bookWriteOf } from "../books/row-rules";
import { dayOf } from "../books/shard-rules";
import { codesByPins, codesSoldTo, type CodeByPin } from "../inventory/code-store";
import { orderRecordById } from "../orders/order-lookup";
import type { OrderRecord } from "../orders/order-record";
import type { LedgerEntry } from "../wallets/ledger";
import { historyOf, placedWallet, type RegisteredWallet } from "../wallets/wallet-registry-store";
import { bookedOrderOf, type BookedOrder } from "./day-rules";
import type { ReconcileEnv } from "./day-sources";
import type { Findings } from "./findings";
import {
  addLine,
  deliveryProblem,
  emptyMoney,
  indexProblems,
  ledgerProblems,
  redeemProblems,
  type CheckName,
  type OrderMoney,
} from "./reconciliation-rules";

/** Order objects asked at once. */
const ASK_AT_ONCE = 16;

export async function inBatches<T, R>(items: readonly T[], ask: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let start = 0; start < items.length; start += ASK_AT_ONCE)
    answers.push(...(await Promise.all(items.slice(start, start + ASK_AT_ONCE).map(ask))));
  return answers;
}

/** An order to drill into: who named it, and whether it has settled (compared on everything). */
export interface Drilled {
  orderId: string;
  /** Its books row in the day, if the books have one. */
  row: BookedOrder | null;
  /** The ledger entries of this wallet-day naming it (`entry:<object>:<seq>` subjects), if any. */
  entries: { subject: string }[];
  /** A code of the table sold to it, if that is what named it. */
  code: { id: number; sku: string } | null;
  settled: boolean;
}

/** The wallet-day the drilled orders were named by. */
export interface DrillDay {
  clientId: string;
  currency: string;
  day: number;
}

const redeemOf = (record: OrderRecord) =>
  record.lines
    .filter((line) => line.product.supplier === "inventory")
    .flatMap((line) => (line.redeem?.pins ?? []).map((pin) => ({ sku: line.sku, pin })));

/** Each order's movements in every object its wallet has been (a charge may have met a moved wallet). */
async function moneyOf(
  env: ReconcileEnv,
  records: readonly OrderRecord[],
  wallets: Map<string, RegisteredWallet>,
): Promise<Map<string, OrderMoney>> {
  const money = new Map<string, OrderMoney>();
  await inBatches(records, async (record) => {
    let lines = emptyMoney(record.clientId, record.wallet);
    const wallet = wallets.get(`${record.clientId}\u0000${record.wallet}`);
    for (const placement of wallet === undefined ? [] : historyOf(wallet))
      for (const entry of (await placedWallet(env, record.clientId, record.wallet, placement).orderEntries(
        record.id,
      )) as LedgerEntry[])
        lines = addLine(lines, entry.kind, entry.amount, entry.createdAt, true);
    money.set(record.id, lines);
  });
  return money;
}

/**
 * Drills into `orders` of `day`: each order object read, and each mismatch reported to `findings`.
 * `wallets` holds the registry rows of the day's wallet and of any other the orders are of.
 */
export async function drillOrders(
  env: ReconcileEnv,
  day: DrillDay,
  orders: readonly Drilled[],
  wallets: Map<string, RegisteredWallet>,
  findings: Findings,
): Promise<number> {
  const records = await inBatches(orders, (order) => orderRecordById(env.ORDERS, order.orderId));
  const known = records.filter((record): record is OrderRecord => record !== null);
  const sold = new Map<string, CodeByPin[]>();
  for (const code of await codesSoldTo(
    env.DB,
    known.map((record) => record.id),
  ))
    sold.set(code.orderId, [...(sold.get(code.orderId) ?? []), { ...code, status: "sold" }]);
  const lostPins = known.flatMap((record) => {
    const own = new Set((sold.get(record.id) ?? []).map((code) => `${code.sku}\u0000${code.pin}`));
    return redeemOf(record).filter((pin) => !own.has(`${pin.sku}\u0000${pin.pin}`));
  });
  const byPin = await codesByPins(env.DB, lostPins);
  const money = await moneyOf(env, known, wallets);
  const rows = await rowsElsewhere(env, day, orders, records);
  orders.forEach((order, at) => {
    const record = records[at] ?? null;
    if (record === null) unknownOrder(order, day, findings);
    else
      judgeOrder(record, { ...order, row: order.row ?? rows.get(record.id) ?? null }, day, {
        money: money.get(record.id)!,
        sold: sold.get(record.id) ?? [],
        byPin,
        findings,
      });
  });
  return known.length;
}

/**
 * The books rows of orders of the day's wallet that the day's books do not hold because their order was
 * created on another day (a movement written before entries kept their order's day is of its own day).
 */
async function rowsElsewhere(
  env: ReconcileEnv,
  day: DrillDay & { day: number },
  orders: readonly Drilled[],
  records: readonly (OrderRecord | null)[],
): Promise<Map<string, BookedOrder>> {
  const elsewhere = records.filter(
    (record, at): record is OrderRecord =>
      record !== null &&
      orders[at]!.row === null &&
      record.clientId === day.clientId &&
      dayOf(record.createdAt) !== day.day,
  );
  const found = new Map<string, BookedOrder>();
  (await inBatches(elsewhere, (record) => bookedRow(env, record))).forEach((row) => {
    if (row !== null) found.set(row.id, bookedOrderOf(row));
  });
  return found;
}

/** An order the day's books, ledger or codes name, which no order object holds. */
function unknownOrder(order: Drilled, day: DrillDay, findings: Findings): void {
  const { orderId } = order;
  const report = (orderIdShown: string | null, clientId: string | null, currency: string | null) =>
    findings.of(`order:${orderId}`, "unknown_order", orderIdShown, clientId, currency);
  if (order.entries.length > 0)
    report(
      orderId,
      day.clientId,
      day.currency,
    )(`the ${day.clientId} ${day.currency} ledger names ${orderId}, which is no order of this service`);
  else if (order.row !== null)
    report(
      orderId,
      day.clientId,
      null,
    )(`the index holds a row of ${day.clientId} for ${orderId}, which is no order of this service`);
  else if (order.code !== null)
    report(
      null,
      null,
      null,
    )(`code #${order.code.id} (${order.code.sku}) is sold to ${orderId}, which is no order of this service`);
}

/** One order against its books row, its ledger lines and its codes. */
function judgeOrder(
  record: OrderRecord,
  order: Drilled,
  day: DrillDay,
  evidence: { money: OrderMoney; sold: CodeByPin[]; byPin: CodeByPin[]; findings: Findings },
): void {
  const { findings, money } = evidence;
  const { id: orderId, clientId, wallet: currency } = record;
  const mismatch = (check: CheckName) => findings.of(`order:${orderId}`, check, orderId, clientId, currency);
  findings.checked(`order:${orderId}`);
  findings.counted.orders += 1;
  // Filed under the entry: a ledger only grows, so this cannot be put right, and it stands whatever later
  // checks of the order find.
  if (day.clientId !== clientId || day.currency !== currency)
    for (const entry of order.entries)
      findings.of(
        entry.subject,
        "ledger_matches_order",
        orderId,
        day.clientId,
        day.currency,
      )(`the ${day.clientId} ${day.currency} ledger names an order of ${clientId} paid in ${currency}`);
  // Checked whatever the order is doing: a charge lands before an order says it was charged or delivers.
  const delivery = deliveryProblem(record.state, record.lines, money);
  if (delivery !== null) mismatch("charge_for_delivery")(delivery);
  for (const problem of redeemProblems(orderId, redeemOf(record), evidence.sold, evidence.byPin, order.settled))
    mismatch("codes_match_redeem")(problem);
  const own = bookWriteOf(record, 0);
  const row = order.row;
  // The row of this very version of the order is compared at once; an older one may only lag.
  if (row !== null && (order.settled || row.modifiedAt >= record.modifiedAt))
    for (const problem of indexProblems(
      { state: row.state as OrderRecord["state"], total: row.total, charged: row.charged, refunded: row.refunded },
      own,
    ))
      mismatch("index_matches_order")(problem);
  else if (row === null && order.settled && day.clientId === clientId && day.currency === currency)
    mismatch("index_matches_order")(`the order is ${record.state} but has no row in the index`);
  if (order.settled && record.state !== "created" && record.state !== "confirmed")
    for (const problem of ledgerProblems(own, money)) mismatch("ledger_matches_order")(problem);
}
