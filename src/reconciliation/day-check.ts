/**
 * One check of one wallet-day (docs/operator-api.md, Reconciliation): its four summaries compared, sealed
 * when they agree, and drilled order by order where they do not, within that wallet and day only. A check
 * reads a bounded amount (day-sources.ts) and writes nothing itself: what it decided is stored by the run
 * (day-store.ts), so a check that dies is made again by the next pass.
 */
import { Money } from "../pricing/money";
import type { RegisteredWallet } from "../wallets/wallet-registry-store";
import {
  booksCodes,
  booksMoney,
  ledgerMoney,
  orderAgrees,
  orderChanging,
  sealProblems,
  SETTLE_BOUND_MS,
  summaryProblems,
  tableCodes,
  type BookedOrder,
  type DayOrder,
  type DaySummaries,
  type WalletDay,
} from "./day-rules";
import { daySources, type DaySources, type ReconcileEnv } from "./day-sources";
import { Findings } from "./findings";
import { drillOrders, type Drilled } from "./order-drill";
import { checkBalances, checkObjectDay } from "./wallet-checks";
import type { OrderNet } from "../wallets/ledger-day-rules";

/** Orders one check drills into at most: the rest wait for the next pass (and an alert says so). */
export const DRILL_LIMIT = 200;

/** What the run knows of the day before this check. */
export interface DayBefore {
  state: "open" | "sealed" | "mismatch" | null;
  /** The summaries it was sealed with, for a re-verification. */
  seal: DaySummaries | null;
  /** When the day was first seen disagreeing while it settles (the bound runs from it). */
  firstSeenAt: number;
}

/** What one check decided. */
export interface DayOutcome {
  state: "open" | "sealed" | "mismatch";
  summaries: DaySummaries;
  findings: Findings;
  /** Why the day is not sealed, in words (none when sealed). */
  reasons: string[];
  /** Whether it read the whole day. */
  whole: boolean;
  large: string[];
  /** Orders of the day still changing, whose two sides differ: the day waits for them to settle. */
  settling: number;
  /** Orders drilled into though still changing: the day had not settled within the bound. */
  forced: number;
  drilled: number;
}

async function summariesOf(sources: DaySources): Promise<DaySummaries> {
  let orders: Record<string, OrderNet> = {};
  let entries = 0;
  let postings = new Money(0);
  let transfers = new Money(0);
  for (const { page } of sources.ledgers) {
    orders = mergeNets(orders, page.orders);
    entries += page.entries;
    for (const posting of page.postings) postings = postings.plus(posting.amount);
    for (const transfer of page.transfers) transfers = transfers.plus(transfer.amount);
  }
  return {
    books: { ...(await booksMoney(sources.rows)), ...booksCodes(sources.rows) },
    ledger: { ...(await ledgerMoney(orders)), entries, postings: postings.toFixed(), transfers: transfers.toFixed() },
    codes: await tableCodes(sources.sold),
    audit: { postings: 0, audited: 0 },
  };
}

/** The day's orders across the wallet's objects (a charge in one, a refund passed on in the next). */
function mergeNets(into: Record<string, OrderNet>, more: Record<string, OrderNet>): Record<string, OrderNet> {
  const merged = { ...into };
  for (const [orderId, net] of Object.entries(more)) {
    const was = merged[orderId];
    const add = (a: string, b: string) => new Money(a).plus(b).toFixed();
    merged[orderId] =
      was === undefined
        ? net
        : {
            charged: add(was.charged, net.charged),
            voided: add(was.voided, net.voided),
            refunded: add(was.refunded, net.refunded),
            other: add(was.other, net.other),
            seqs: [...was.seqs, ...net.seqs],
            lastAt: Math.max(was.lastAt, net.lastAt),
          };
  }
  return merged;
}

/** Every order of the day, from both sides, with the codes the table sells to it. */
async function dayOrders(sources: DaySources): Promise<Map<string, DayOrder & { subjects: string[] }>> {
  const orders = new Map<string, DayOrder & { subjects: string[] }>();
  const sold = new Map<string, { orderId: string; pin: string }[]>();
  for (const code of sources.sold) sold.set(code.orderId, [...(sold.get(code.orderId) ?? []), code]);
  const at = (orderId: string) => {
    let order = orders.get(orderId);
    if (order === undefined) {
      order = { orderId, row: null, net: null, sold: { codes: 0, codesHash: "" }, subjects: [] };
      orders.set(orderId, order);
    }
    return order;
  };
  for (const row of sources.rows) at(row.id).row = row;
  for (const { object, page } of sources.ledgers)
    for (const [orderId, net] of Object.entries(page.orders)) {
      const order = at(orderId);
      order.net = order.net === null ? net : mergeNets({ [orderId]: order.net }, { [orderId]: net })[orderId]!;
      order.subjects.push(...net.seqs.map((seq) => `entry:${object.name}:${seq}`));
    }
  for (const order of orders.values()) order.sold = await tableCodes(sold.get(order.orderId) ?? []);
  return orders;
}

/** Whether the books row's own figures fit what the ledger kept: a charged order's total is its charge. */
function rowFits(row: BookedOrder | null): boolean {
  if (row === null) return true;
  const charged = ["confirmed", "processing", "successful", "partial", "failed"].includes(row.state);
  return charged ? new Money(row.total).equals(row.charged) : new Money(row.charged).isZero();
}

/**
 * Checks one wallet-day. `settledBy`: what changed after it may still be on its way; `registry`: the
 * registry rows of the day's wallet (and any other a drilled order is of).
 */
export async function checkDay(
  env: ReconcileEnv,
  day: WalletDay,
  registry: Map<string, RegisteredWallet>,
  before: DayBefore,
  clock: { now: number; settledBy: number },
): Promise<DayOutcome> {
  const findings = new Findings();
  const wallet = registry.get(`${day.clientId}\u0000${day.currency}`);
  const sources = await daySources(env, day, wallet);
  const summaries = await summariesOf(sources);
  findings.counted.walletObjects += sources.ledgers.length;
  findings.counted.ledgerEntries += summaries.ledger.entries;
  findings.counted.soldCodes += summaries.codes.codes;
  for (const { object, page } of sources.ledgers) {
    const audits = await checkObjectDay(env, object, page, sources.audited.get(object.name), findings);
    summaries.audit.postings += audits.postings;
    summaries.audit.audited += audits.audited;
  }

  const pastBound = clock.now - before.firstSeenAt >= SETTLE_BOUND_MS;
  // A sealed day found changed is drilled in full: both sides may have been changed alike.
  const changedSinceSeal = before.seal !== null ? sealProblems(before.seal, summaries) : [];
  const orders = await dayOrders(sources);
  const drill: Drilled[] = [];
  let settling = 0;
  let forced = 0;
  for (const order of orders.values()) {
    const differs = changedSinceSeal.length > 0 || !orderAgrees(order) || !rowFits(order.row);
    if (!differs) continue;
    // One still changing may only be on its way (its row lags its charge): the day waits for it, up to the bound.
    if (orderChanging(order, clock.settledBy)) {
      if (!pastBound) {
        settling += 1;
        continue;
      }
      forced += 1;
    }
    const sold = sources.sold.find((code) => code.orderId === order.orderId);
    drill.push({
      orderId: order.orderId,
      row: order.row,
      entries: order.subjects.map((subject) => ({ subject })),
      code: sold === undefined ? null : { id: sold.id, sku: sold.sku },
      settled: true,
    });
  }
  const large = [...sources.large];
  if (drill.length > DRILL_LIMIT) large.push(`${drill.length} orders to drill into, ${DRILL_LIMIT} a check`);
  const drilled = await drillOrders(env, day, drill.slice(0, DRILL_LIMIT), registry, findings);
  // Each object's balance against its whole ledger: read whole only for a wallet that moved, or a day drilled.
  if (sources.ledgers.length > 1 || drill.length > 0)
    await checkBalances(
      sources.ledgers.map(({ object }) => object),
      findings,
    );
  findings.counted.orders = drilled;
  findings.counted.ordersPastBound = forced;
  const found = findings.all();
  const reasons = [...summaryProblems(summaries), ...changedSinceSeal];
  const whole = large.length === 0;
  const state = found.length > 0 ? "mismatch" : settling > 0 || !whole ? "open" : "sealed";
  return { state, summaries, findings, reasons, whole, large, settling, forced, drilled: drill.length };
}
