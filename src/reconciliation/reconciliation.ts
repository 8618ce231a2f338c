/**
 * The reconciliation of the order index with the wallets' ledgers and the sold codes (its rules in
 * reconciliation-rules.ts), the hourly run the scheduled job makes of it, and the backfill of the index
 * from the ledgers for orders that ended before the index existed. GET /admin/reconciliation, the console
 * and the scheduled job call it; it reads only, but for the stored run and the backfill's rows.
 */
import { codesSoldBetween, codesSoldTo, type SoldCode } from "../inventory/code-store";
import { log } from "../kernel/log";
import { Money } from "../pricing/money";
import type { LedgerEntry } from "../wallets/ledger";
import type { Placement, WalletObject } from "../wallets/wallet-object";
import {
  historyOf,
  placedWallet,
  registeredWallets,
  registeredWalletsStatement,
  type RegisteredWallet,
} from "../wallets/wallet-registry-store";
import { hasEnded, indexRowsByReference, walkIndex, type IndexRow } from "../order-index/order-index-store";
import { repairIndex as indexOrders } from "../order-index/order-index-repair";
import { orderRecordById } from "../orders/order-lookup";
import type { OrderRecord } from "../orders/order-record";
import {
  addLine,
  DEFAULT_GRACE_SECONDS,
  emptyMoney,
  ledgerProblems,
  lookAt,
  SCHEDULED_PERIOD_MS,
  type CheckName,
  type Checked,
  type Mismatch,
  type OrderMoney,
  type Reconciliation,
} from "./reconciliation-rules";
import { saveRun } from "./reconciliation-store";

export type { Checked, Mismatch, Reconciliation } from "./reconciliation-rules";

const END_STATES = new Set(["successful", "partial", "failed", "rejected"]);

export interface Period {
  createdFrom: number;
  createdTo: number;
  /** Seconds; DEFAULT_GRACE_SECONDS unless given. */
  grace?: number;
}

type ReconcileEnv = Pick<Env, "DB" | "WALLETS" | "ORDERS" | "ORDER_TTL_SECONDS">;

const PAGE = 500;

/**
 * The seq after which the object's ledger holds nothing older than `since` (0: read it all). A ledger is
 * appended in time order, so a galloping then halving search finds it in a few one-entry reads rather
 * than reading the whole ledger each run.
 */
async function seqBefore(wallet: DurableObjectStub<WalletObject>, since: number): Promise<number> {
  const olderAt = async (seq: number): Promise<boolean> => {
    const [entry] = (await wallet.entries(seq - 1, 1)) as LedgerEntry[];
    return entry !== undefined && entry.createdAt < since;
  };
  if (since <= 0 || !(await olderAt(1))) return 0;
  let low = 1;
  let high = 2;
  while (await olderAt(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await olderAt(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/** Every line of the object's ledger from `since` on that names an order, a page at a time. */
async function* orderLines(
  env: ReconcileEnv,
  clientId: string,
  currency: string,
  placement: Placement,
  since: number,
): AsyncGenerator<LedgerEntry> {
  const wallet = placedWallet(env, clientId, currency, placement);
  let after = await seqBefore(wallet, since);
  for (;;) {
    const page = (await wallet.entries(after, PAGE)) as LedgerEntry[];
    for (const entry of page) if (entry.orderId !== null && entry.createdAt >= since) yield entry;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.seq;
  }
}

/** Every registered wallet, with the client it belongs to. */
async function allWallets(db: D1Database): Promise<(RegisteredWallet & { clientId: string })[]> {
  const { results } = await registeredWalletsStatement(db, `SELECT client_id, currency FROM wallets`).all();
  const rows = results as { client_id: string }[];
  return registeredWallets(rows).map((wallet, at) => ({ ...wallet, clientId: rows[at]!.client_id }));
}

/**
 * The three checks over orders created (and movements made) from `createdFrom` to `createdTo`, unix ms:
 * every ledger movement naming an order matches the order's index row; every indexed order in an end
 * state has ledger lines netting to its charge minus its refunds; every code sold to those orders is in
 * exactly its order's redeem, and no sold code belongs to no order. docs/operator-api.md explains each.
 */
export async function reconcile(
  env: ReconcileEnv,
  period: Period,
  now = Date.now(),
  { indexFirst = false } = {},
): Promise<Reconciliation> {
  const { createdFrom, createdTo } = period;
  // The hourly run and an operator's run bring the index up to date first, so that every movement read
  // below has had its order indexed; a viewer's read reads it as it is (the default grace covers its lag).
  if (indexFirst) await indexOrders(env);
  const settledBy = now - (period.grace ?? DEFAULT_GRACE_SECONDS) * 1000;
  const settled = (at: number) => at <= settledBy;
  const inPeriod = (at: number) => at >= createdFrom && at <= createdTo;
  // Orders are charged after they are created and before they expire: a movement in the period is of an
  // order created at most one TTL before it.
  const windowFrom = Math.max(0, createdFrom - Number(env.ORDER_TTL_SECONDS) * 1000);
  const mismatches: Mismatch[] = [];
  const found =
    (check: CheckName, orderId: string | null, clientId: string | null, currency: string | null) => (problem: string) =>
      mismatches.push({ check, orderId, clientId, problem, lookAt: lookAt(orderId, clientId, currency) });
  const checked: Checked = {
    wallets: 0,
    walletObjects: 0,
    ledgerMovements: 0,
    ordersOfMovements: 0,
    openOrders: 0,
    indexedOrders: 0,
    endedOrders: 0,
    soldCodes: 0,
    leftToNextRun: 0,
  };
  const records = new Map<string, Promise<OrderRecord | null>>();
  const record = (orderId: string) => {
    if (!records.has(orderId)) records.set(orderId, orderRecordById(env.ORDERS, orderId));
    return records.get(orderId)!;
  };

  // The ledgers: every line naming an order, summed per order across every object the wallet has been.
  const wallets = await allWallets(env.DB);
  checked.wallets = wallets.length;
  const money = new Map<string, OrderMoney>();
  for (const wallet of wallets) {
    for (const placement of historyOf(wallet)) {
      checked.walletObjects += 1;
      for await (const entry of orderLines(env, wallet.clientId, wallet.currency, placement, windowFrom)) {
        const orderId = entry.orderId!;
        const known = money.get(orderId);
        if (known !== undefined && (known.clientId !== wallet.clientId || known.currency !== wallet.currency)) {
          found(
            "ledger_matches_index",
            orderId,
            wallet.clientId,
            wallet.currency,
          )(
            `the order is named in two wallets: ${known.clientId} ${known.currency} and ${wallet.clientId} ${wallet.currency}`,
          );
          continue;
        }
        if (inPeriod(entry.createdAt)) checked.ledgerMovements += 1;
        money.set(
          orderId,
          addLine(
            known ?? emptyMoney(wallet.clientId, wallet.currency),
            entry.kind,
            entry.amount,
            entry.createdAt,
            inPeriod(entry.createdAt),
          ),
        );
      }
    }
  }

  // An order charged before the window whose refund or void falls in it: all of its lines, not only
  // those of the window, so that its amounts are compared whole.
  for (const [orderId, lines] of money) {
    if (!lines.charged.isZero() || lines.inPeriod === 0) continue;
    const wallet = wallets.find((one) => one.clientId === lines.clientId && one.currency === lines.currency);
    if (wallet === undefined) continue;
    let whole = emptyMoney(lines.clientId, lines.currency);
    for (const placement of historyOf(wallet)) {
      const stub = placedWallet(env, lines.clientId, lines.currency, placement);
      for (const entry of (await stub.orderEntries(orderId)) as LedgerEntry[])
        whole = addLine(whole, entry.kind, entry.amount, entry.createdAt, inPeriod(entry.createdAt));
    }
    money.set(orderId, whole);
  }

  // The index over the window those movements' orders were created in (never by id: there is no index on it).
  const indexed = new Map<string, IndexRow>();
  for await (const rows of walkIndex(env.DB, { createdFrom: windowFrom, createdTo })) {
    for (const row of rows) indexed.set(row.id, row);
  }

  // 1. Every movement in the period that names an order matches that order's row.
  for (const [orderId, lines] of money) {
    if (lines.inPeriod === 0) continue;
    const mismatch = found("ledger_matches_index", orderId, lines.clientId, lines.currency);
    if (!settled(lines.lastAt)) {
      checked.leftToNextRun += 1;
      continue;
    }
    let row = indexed.get(orderId);
    if (row === undefined) {
      const order = await record(orderId);
      if (order === null) {
        mismatch(`the ${lines.currency} ledger names ${orderId}, which is no order of this service`);
        continue;
      }
      if (order.clientId !== lines.clientId || order.wallet !== lines.currency) {
        mismatch(
          `the ${lines.clientId} ${lines.currency} ledger names an order of ${order.clientId} paid in ${order.wallet}`,
        );
        continue;
      }
      if (!hasEnded(order.state)) {
        checked.openOrders += 1;
        continue;
      }
      if (!settled(order.modifiedAt)) {
        checked.leftToNextRun += 1;
        continue;
      }
      // Created before the window (a refund long after its charge): found by its key instead.
      row = (await indexRowsByReference(env.DB, order.clientId, [order.reference])).get(order.reference);
      if (row === undefined) {
        mismatch(`the order is ${order.state} but has no row in the index`);
        continue;
      }
    }
    if (!settled(row.modifiedAt)) {
      checked.leftToNextRun += 1;
      continue;
    }
    // Indexed before its charge was settled (a confirm cut off midway): the next run reads it again.
    if (row.state === "created" || row.state === "confirmed") {
      checked.openOrders += 1;
      continue;
    }
    checked.ordersOfMovements += 1;
    if (row.clientId !== lines.clientId)
      mismatch(`the ${lines.clientId} ledger names the order, whose index row is of ${row.clientId}`);
    else for (const problem of ledgerProblems(row, lines)) mismatch(problem);
  }

  // 2. Every indexed order created in the period in an end state has ledger lines netting to its charge
  // minus its refunds.
  const ofPeriod = [...indexed.values()].filter((row) => inPeriod(row.createdAt));
  checked.indexedOrders = ofPeriod.length;
  const settledRows: IndexRow[] = [];
  for (const row of ofPeriod) {
    const lines = money.get(row.id);
    if (!settled(row.modifiedAt) || (lines !== undefined && !settled(lines.lastAt))) {
      checked.leftToNextRun += 1;
      continue;
    }
    settledRows.push(row);
    if (!END_STATES.has(row.state)) continue;
    checked.endedOrders += 1;
    const mismatch = found("index_matches_ledger", row.id, row.clientId, row.wallet);
    if (lines !== undefined && (lines.clientId !== row.clientId || lines.currency !== row.wallet)) {
      mismatch(
        `the index says ${row.clientId} ${row.wallet} paid, the ledger lines are in ${lines.clientId} ${lines.currency}`,
      );
      continue;
    }
    const net = lines?.net ?? new Money(0);
    const owed = new Money(row.charged).minus(row.refunded);
    if (!net.negated().equals(owed))
      mismatch(
        `${row.state}: the index's charge minus refunds is ${owed.toFixed()}, the ledger lines net ${net.negated().toFixed()}`,
      );
  }

  // 3. Every code sold to those orders (or in the period) is in exactly its order's redeem.
  const codes = new Map<number, SoldCode>();
  for (const code of await codesSoldTo(
    env.DB,
    settledRows.map((row) => row.id),
  ))
    codes.set(code.id, code);
  for (const code of await codesSoldBetween(env.DB, createdFrom, Math.min(createdTo, settledBy)))
    codes.set(code.id, code);
  checked.soldCodes = codes.size;
  const byOrder = new Map<string, SoldCode[]>();
  for (const code of codes.values()) byOrder.set(code.orderId, [...(byOrder.get(code.orderId) ?? []), code]);
  const soldTo = new Map([...codes.values()].map((code) => [`${code.sku}\u0000${code.pin}`, code]));
  for (const [orderId, sold] of byOrder) {
    const order = await record(orderId);
    if (order === null) {
      for (const code of sold)
        found(
          "codes_match_redeem",
          null,
          null,
          null,
        )(`code #${code.id} (${code.sku}) is sold to ${orderId}, which is no order of this service`);
      continue;
    }
    const mismatch = found("codes_match_redeem", orderId, order.clientId, order.wallet);
    if (!settled(order.modifiedAt)) {
      checked.leftToNextRun += 1;
      continue;
    }
    const redeemed = new Set(
      order.lines
        .filter((line) => line.product.supplier === "inventory")
        .flatMap((line) => (line.redeem?.pins ?? []).map((pin) => `${line.sku}\u0000${pin}`)),
    );
    for (const code of sold)
      if (!redeemed.has(`${code.sku}\u0000${code.pin}`))
        mismatch(`code #${code.id} (${code.sku}) is sold to the order but is not in its redeem`);
    const ownKeys = new Set(sold.map((code) => `${code.sku}\u0000${code.pin}`));
    for (const key of redeemed) {
      if (ownKeys.has(key)) continue;
      const other = soldTo.get(key);
      const sku = key.split("\u0000")[0];
      mismatch(
        other === undefined
          ? `the order's redeem holds a code of ${sku} that the codes table does not sell to it`
          : `the order's redeem holds code #${other.id} (${sku}), which is sold to ${other.orderId}`,
      );
    }
  }
  return { createdFrom, createdTo, checked, mismatches };
}

/** The period of a run now: the last day, up to now. */
export function lastDay(now: number): Period {
  return { createdFrom: now - SCHEDULED_PERIOD_MS, createdTo: now };
}

/**
 * A run over the last day, as the scheduled job (hourly) and the console's "run now" make it: every
 * mismatch one structured log line, the run's summary one more, and the run stored as the last one for the
 * Needs attention list.
 */
export async function runAndStore(
  env: ReconcileEnv,
  now = Date.now(),
  { indexFirst = true } = {},
): Promise<Reconciliation> {
  const result = await reconcile(env, lastDay(now), now, { indexFirst });
  for (const mismatch of result.mismatches)
    log("error", "reconciliation mismatch", { component: "reconciliation", ...mismatch });
  log("info", "reconciliation", {
    component: "reconciliation",
    createdFrom: result.createdFrom,
    createdTo: result.createdTo,
    ...result.checked,
    mismatches: result.mismatches.length,
  });
  await saveRun(env.DB, now, result);
  return result;
}
