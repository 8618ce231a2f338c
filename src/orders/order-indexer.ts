/**
 * The indexer: brings the order index (order-index.ts) up to date from the wallets' ledgers. Every order
 * that moves money names itself in its wallet's ledger (its charge, a refund, the credit of a void), so
 * the ledgers are a feed of the orders to index that the order's own requests already pay for: a client
 * request makes no D1 call for the index. The scheduled job runs it, and an operator can run it at once.
 *
 * One run: for each wallet object, the ledger entries after its cursor (a page), the records of the orders
 * they name, and one D1 transaction with their rows and the cursor moved past the page; then the orders
 * indexed while still open, read again. It dies anywhere without harm: a page whose transaction did not
 * commit is read again by the next run, and every write is an upsert that only a later version of the
 * order passes.
 */
import { walletName, type LedgerEntry } from "../wallets/ledger";
import { placementOf, regionOf, registeredWallets, walletStub } from "../wallets/wallet-registry-store";
import { randomHex } from "../kernel/crypto";
import {
  cursorStatement,
  indexRowOf,
  ledgerCursors,
  openOrderCount,
  openOrderIds,
  upsertStatement,
} from "./order-index";
import { orderRecordById } from "./order-lookup";
import type { OrderRecord } from "./order-record";

/** Ledger entries read per page. */
export const LEDGER_PAGE = 500;
/**
 * Full pages a run reads beyond each wallet's first, all wallets together: the run's bound (each page is up
 * to 500 order reads and one D1 transaction). A wallet still behind is caught up by the next runs.
 */
export const PAGES_PER_RUN = 40;
/** Open orders read again per run (when more are open, each run reads this many from a random place). */
const OPEN_PER_RUN = 2_000;
/** Order objects asked at once. */
const ASK_AT_ONCE = 16;

export interface IndexerRun {
  /** Wallet objects whose ledger was read. */
  wallets: number;
  /** Ledger entries read that name an order. */
  entries: number;
  /** Orders read from their objects (each once per run). */
  orders: number;
  /** D1 rows written, index entries included, as D1 bills them. */
  rowsWritten: number;
  /** Orders still open after the run (read again by the next). */
  open: number;
  /** Wallet objects with more entries than one page: the next run goes on. */
  behind: number;
}

type IndexerEnv = Pick<Env, "DB" | "WALLETS" | "ORDERS">;

async function recordsOf(env: IndexerEnv, orderIds: readonly string[]): Promise<OrderRecord[]> {
  const records: OrderRecord[] = [];
  for (let start = 0; start < orderIds.length; start += ASK_AT_ONCE) {
    const asked = orderIds.slice(start, start + ASK_AT_ONCE).map((orderId) => orderRecordById(env.ORDERS, orderId));
    for (const record of await Promise.all(asked)) if (record !== null) records.push(record);
  }
  return records;
}

/** Writes `records`' rows and, in the same transaction, the cursor; answers the rows written. */
async function commit(env: IndexerEnv, records: readonly OrderRecord[], cursor: D1PreparedStatement | null) {
  const statements = records.map((record) => upsertStatement(env.DB, indexRowOf(record)));
  if (cursor !== null) statements.push(cursor);
  if (statements.length === 0) return 0;
  const results = await env.DB.batch(statements);
  return results.reduce((written, result) => written + (result.meta.rows_written ?? 0), 0);
}

/** One run of the indexer over every wallet object, or over one client's (`clientId`). */
export async function indexOrders(env: IndexerEnv, clientId?: string): Promise<IndexerRun> {
  const run: IndexerRun = { wallets: 0, entries: 0, orders: 0, rowsWritten: 0, open: 0, behind: 0 };
  const columns = `client_id, currency, region, generation, previous, moving_to`;
  const { results } = await (
    clientId === undefined
      ? env.DB.prepare(`SELECT ${columns} FROM wallets ORDER BY client_id, currency`)
      : env.DB.prepare(`SELECT ${columns} FROM wallets WHERE client_id = ?1 ORDER BY currency`).bind(clientId)
  ).all<{ client_id: string }>();
  const cursors = await ledgerCursors(env.DB);
  const seen = new Set<string>();
  let extraPages = 0;
  for (const [at, wallet] of registeredWallets(results).entries()) {
    const owner = results[at]!.client_id;
    // The objects it has been and the one it is; one a move is taking it to is read once the move is done.
    for (const placement of [...wallet.previous, placementOf(wallet)]) {
      const name = walletName(owner, wallet.currency, placement.generation, placement.region);
      const stub = walletStub(env, owner, wallet.currency, regionOf(placement.region), placement.generation);
      run.wallets += 1;
      // Page after page while pages come full: each wallet's first page, then the run's budget of further
      // pages (shared by all wallets).
      for (let after = cursors.get(name) ?? 0; ;) {
        const page = (await stub.entries(after, LEDGER_PAGE)) as LedgerEntry[];
        if (page.length === 0) break;
        const named = [...new Set(page.flatMap((entry) => (entry.orderId === null ? [] : [entry.orderId])))];
        const fresh = named.filter((orderId) => !seen.has(orderId));
        for (const orderId of fresh) seen.add(orderId);
        run.entries += page.filter((entry) => entry.orderId !== null).length;
        const records = await recordsOf(env, fresh);
        run.orders += fresh.length;
        after = page[page.length - 1]!.seq;
        run.rowsWritten += await commit(env, records, cursorStatement(env.DB, name, after));
        if (page.length < LEDGER_PAGE) break;
        if (extraPages >= PAGES_PER_RUN) {
          run.behind += 1;
          break;
        }
        extraPages += 1;
      }
    }
  }
  // From a random place among them, so that over runs every one is read when there are more than a run reads.
  const from = `ord_${randomHex(32)}`;
  const open = (await openOrderIds(env.DB, OPEN_PER_RUN, from)).filter((orderId) => !seen.has(orderId));
  const reread = await recordsOf(env, open);
  run.orders += open.length;
  run.rowsWritten += await commit(env, reread, null);
  run.open = await openOrderCount(env.DB);
  return run;
}
