/**
 * Reconciliation of the order index with the wallets' ledgers and the sold codes, and the backfill of the
 * index from the ledgers. Reads only; the backfill writes index rows of version 0, which never overwrite a
 * row an order wrote itself.
 */
import { soldCodesOf } from "../inventory/code-store";
import { log } from "../kernel/log";
import { Money } from "../pricing/money";
import type { LedgerEntry } from "../wallets/ledger";
import { regionOf, walletStub, type Region } from "../wallets/wallet-registry";
import { objectIdOf } from "./order-id";
import { indexRowOf, indexRowsOf, walkIndex, writeIndexRow, type IndexRow } from "./order-index";
import type { OrderRecord } from "./order-record";

/** Movements newer than this are left to the next run: the index may not have them yet (it lags by seconds). */
export const RECONCILE_GRACE_MS = 5 * 60_000;

const END_STATES = new Set(["successful", "partial", "failed", "rejected"]);

export interface Mismatch {
  check: "ledger_matches_index" | "index_matches_ledger" | "code_in_one_redeem";
  orderId: string | null;
  clientId: string | null;
  problem: string;
  lookAt: string;
}

export interface Reconciliation {
  createdFrom: number;
  createdTo: number;
  checked: { wallets: number; ledgerMovements: number; indexedOrders: number; soldCodes: number };
  mismatches: Mismatch[];
}

/** An order's lines in one wallet's ledger, summed. */
interface OrderMoney {
  charged: Money;
  refunded: Money;
  net: Money;
  /** The latest movement naming the order. */
  lastAt: number;
  inPeriod: number;
}

async function walletsOf(db: D1Database): Promise<{ clientId: string; currency: string; region: Region | null }[]> {
  const { results } = await db
    .prepare(`SELECT client_id AS clientId, currency, region FROM wallets ORDER BY client_id, currency`)
    .all<{ clientId: string; currency: string; region: string | null }>();
  return results.map((row) => ({ ...row, region: regionOf(row.region) }));
}

/** Every movement of the wallet that names an order, summed per order (the whole ledger, a page at a time). */
async function ledgerByOrder(env: Env, clientId: string, currency: string, region: Region | null, from: number, to: number): Promise<Map<string, OrderMoney>> {
  const wallet = walletStub(env, clientId, currency, region);
  const byOrder = new Map<string, OrderMoney>();
  for (let after = 0; ; ) {
    const page = (await wallet.entries(after, 500)) as LedgerEntry[];
    for (const entry of page) {
      if (entry.orderId === null) continue;
      const money = byOrder.get(entry.orderId) ?? { charged: new Money(0), refunded: new Money(0), net: new Money(0), lastAt: 0, inPeriod: 0 };
      if (entry.kind === "order_charge") money.charged = money.charged.minus(entry.amount);
      if (entry.kind === "order_refund") money.refunded = money.refunded.plus(entry.amount);
      money.net = money.net.plus(entry.amount);
      money.lastAt = Math.max(money.lastAt, entry.createdAt);
      if (entry.createdAt >= from && entry.createdAt <= to) money.inPeriod += 1;
      byOrder.set(entry.orderId, money);
    }
    if (page.length < 500) break;
    after = page[page.length - 1]!.seq;
  }
  return byOrder;
}

const look = (orderId: string) => `GET /admin/orders/${orderId} and the wallet's ledger (GET /admin/wallets/:clientId/:currency/ledger)`;

/**
 * The three checks over a period: every ledger movement in it that names an order matches the indexed
 * order (its state and amounts); every indexed order created in it that is in an end state has ledger lines
 * netting to its charge minus its refunds; every code sold to those orders is in exactly its order's redeem.
 * Movements and orders younger than `graceMs` (RECONCILE_GRACE_MS unless asked) are left to the next run.
 */
export async function reconcile(env: Env, createdFrom: number, createdTo: number, now = Date.now(), graceMs = RECONCILE_GRACE_MS): Promise<Reconciliation> {
  const mismatches: Mismatch[] = [];
  // Strictly before: with no grace, everything up to this moment is checked.
  const settledBefore = now - graceMs + (graceMs === 0 ? 1 : 0);
  const wallets = await walletsOf(env.DB);
  const ledgers = new Map<string, Map<string, OrderMoney>>();
  let ledgerMovements = 0;
  for (const { clientId, currency, region } of wallets) {
    const byOrder = await ledgerByOrder(env, clientId, currency, region, createdFrom, createdTo);
    ledgers.set(`${clientId}\u0000${currency}`, byOrder);
    const named = [...byOrder].filter(([, money]) => money.inPeriod > 0 && money.lastAt < settledBefore);
    ledgerMovements += named.reduce((count, [, money]) => count + money.inPeriod, 0);
    const rows = await indexRowsOf(env.DB, clientId, named.map(([orderId]) => orderId));
    for (const [orderId, money] of named) {
      const row = rows.get(orderId);
      if (row === undefined) {
        mismatches.push({ check: "ledger_matches_index", orderId, clientId, problem: `the ${currency} ledger names the order, the index has no such order of the client`, lookAt: look(orderId) });
        continue;
      }
      if (row.wallet !== currency) mismatches.push({ check: "ledger_matches_index", orderId, clientId, problem: `the ${currency} ledger names the order, the index says it is paid from ${row.wallet}`, lookAt: look(orderId) });
      // A rejected order's charge (if a cut-off confirm landed one) is credited back by its void.
      const charged = row.state === "rejected" ? money.net : money.charged;
      if (!charged.equals(row.charged)) {
        mismatches.push({ check: "ledger_matches_index", orderId, clientId, problem: `the ledger charged ${charged.toFixed()}, the index says ${row.charged} (${row.state})`, lookAt: look(orderId) });
      }
      if (!money.refunded.equals(row.refunded)) {
        mismatches.push({ check: "ledger_matches_index", orderId, clientId, problem: `the ledger refunded ${money.refunded.toFixed()}, the index says ${row.refunded} (${row.state})`, lookAt: look(orderId) });
      }
    }
  }

  const indexed: IndexRow[] = [];
  for await (const rows of walkIndex(env.DB, { createdFrom, createdTo })) indexed.push(...rows);
  for (const row of indexed) {
    if (!END_STATES.has(row.state) || row.modifiedAt >= settledBefore) continue;
    const money = ledgers.get(`${row.clientId}\u0000${row.wallet}`)?.get(row.id);
    const net = money?.net ?? new Money(0);
    const owed = new Money(row.charged).minus(row.refunded).negated();
    if (!net.equals(owed)) {
      mismatches.push({ check: "index_matches_ledger", orderId: row.id, clientId: row.clientId, problem: `${row.state}: the ledger nets ${net.toFixed()}, the index's charge minus refunds is ${owed.negated().toFixed()}`, lookAt: look(row.id) });
    }
  }

  const settled = indexed.filter((row) => row.modifiedAt < settledBefore);
  const sold = await soldCodesOf(env.DB, settled.map((row) => row.id));
  const soldByOrder = new Map<string, { sku: string; pin: string }[]>();
  for (const code of sold) soldByOrder.set(code.orderId, [...(soldByOrder.get(code.orderId) ?? []), code]);
  const redeemedBy = new Map<string, string[]>();
  for (const [orderId, codes] of soldByOrder) {
    const id = objectIdOf(env.ORDERS, orderId);
    const record = id === null ? null : ((await env.ORDERS.get(id).record()) as OrderRecord | null);
    const pins = new Set((record?.lines ?? []).flatMap((line) => (line.redeem?.pins ?? []).map((pin) => `${line.sku}\u0000${pin}`)));
    for (const code of codes) {
      const key = `${code.sku}\u0000${code.pin}`;
      redeemedBy.set(key, [...(redeemedBy.get(key) ?? []), orderId]);
      if (!pins.has(key)) mismatches.push({ check: "code_in_one_redeem", orderId, clientId: record?.clientId ?? null, problem: `code ${code.sku} ${code.pin} is sold to the order but not in its redeem`, lookAt: `${look(orderId)} and the codes table` });
    }
  }
  for (const [key, orders] of redeemedBy) {
    if (orders.length > 1) mismatches.push({ check: "code_in_one_redeem", orderId: orders[0]!, clientId: null, problem: `code ${key.replace("\u0000", " ")} is in the redeem of ${orders.length} orders: ${orders.join(", ")}`, lookAt: "the codes table" });
  }
  return { createdFrom, createdTo, checked: { wallets: wallets.length, ledgerMovements, indexedOrders: indexed.length, soldCodes: sold.length }, mismatches };
}

/** The scheduled run: the last day, every mismatch one structured log line. */
export async function reconcileLastDay(env: Env, now: number): Promise<Reconciliation> {
  const result = await reconcile(env, now - 86_400_000, now, now);
  for (const mismatch of result.mismatches) log("error", "reconciliation mismatch", { step: "reconciliation", ...mismatch });
  log("info", "reconciliation", { step: "reconciliation", createdFrom: result.createdFrom, createdTo: result.createdTo, ...result.checked, mismatches: result.mismatches.length });
  return result;
}

/**
 * Orders created before the index existed: each wallet's ledger names every charged order, each order is
 * read from itself, and a row of version 0 is written for an order the index does not hold (an order's own
 * write always has a higher version, so the backfill never overwrites it).
 */
export async function backfillIndex(env: Env): Promise<{ wallets: number; orders: number; written: number }> {
  const wallets = await walletsOf(env.DB);
  let orders = 0;
  let written = 0;
  for (const { clientId, currency, region } of wallets) {
    const named = [...(await ledgerByOrder(env, clientId, currency, region, 0, 0)).keys()];
    orders += named.length;
    const present = await indexRowsOf(env.DB, clientId, named);
    for (const orderId of named) {
      if (present.has(orderId)) continue;
      const id = objectIdOf(env.ORDERS, orderId);
      const record = id === null ? null : ((await env.ORDERS.get(id).record()) as OrderRecord | null);
      if (record === null || record.clientId !== clientId) continue;
      if ((await writeIndexRow(env.DB, indexRowOf(record, 0))) > 0) written += 1;
    }
  }
  return { wallets: wallets.length, orders, written };
}
