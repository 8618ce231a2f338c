/**
 * What is left of the order index (D1 `order_index`, schema/migrations/0017_order_index_from_orders.sql):
 * the service no longer writes it (each order writes its row to its client's books, src/books/), and it is
 * read only as the source of the backfill of the books (order-index-backfill.ts), whose last step drops
 * it. Also the shapes the search shares with the books (its filters and cursor), the row an order's
 * record makes (indexRowOf, the search's examples), the repair pass's cursor and the backfill's state.
 *
 * Only this module reads or writes the tables.
 */
import { Money } from "../pricing/money";
import type { OrderRecord } from "../orders/order-record";
import type { OrderState } from "../orders/order-view-schemas";

/**
 * Each state's stage: 1 while the order is open (in the partial index the repair pass reads), 2 once it
 * has ended.
 */
const STAGES: Record<OrderState, number> = {
  created: 1,
  confirmed: 1,
  processing: 1,
  successful: 2,
  partial: 2,
  failed: 2,
  rejected: 2,
};

/** Whether an order in `state` has ended (its row will not change again). */
export function hasEnded(state: OrderState): boolean {
  return STAGES[state] === 2;
}

/** States in which the order's wallet has been charged its total. */
const CHARGED_STATES: ReadonlySet<OrderState> = new Set(["confirmed", "processing", "successful", "partial", "failed"]);

/** What became of a line, as the index shows it. */
export type LineOutcome = "pending" | "delivered" | "failed";

/** One line of an indexed order; `amount` is the line's charge in the wallet's currency. */
export interface IndexLine {
  sku: string;
  supplier: string;
  quantity: number;
  amount: string;
  outcome: LineOutcome;
}

/** One order as the index holds it; amounts are exact decimal strings in the wallet's currency. */
export interface IndexRow {
  id: string;
  clientId: string;
  reference: string;
  state: OrderState;
  wallet: string;
  total: string;
  /** What the wallet was charged: the total once confirmed, 0 for a rejected order. */
  charged: string;
  /** What failed lines credited back. */
  refunded: string;
  skus: string[];
  lines: IndexLine[];
  createdAt: number;
  modifiedAt: number;
  expiresAt: number;
  /** 1 open, 2 ended. */
  stage: number;
  /** The order's count of changes the index shows (0: a row of the ledger indexer of release 1.2). */
  version: number;
}

const OUTCOMES: Record<OrderRecord["lines"][number]["status"], LineOutcome> = {
  pending: "pending",
  fulfilled: "delivered",
  failed: "failed",
};

/** The index row of `order` at its `version`; pure. */
export function indexRowOf(order: OrderRecord, version = 0): IndexRow {
  let refunded = new Money(0);
  for (const line of order.lines) refunded = refunded.plus(line.refunded);
  return {
    id: order.id,
    clientId: order.clientId,
    reference: order.reference,
    state: order.state,
    wallet: order.wallet,
    total: new Money(order.charge).toFixed(),
    charged: CHARGED_STATES.has(order.state) ? new Money(order.charge).toFixed() : "0",
    refunded: refunded.toFixed(),
    skus: [...new Set(order.lines.map((line) => line.sku))],
    lines: order.lines.map((line) => ({
      sku: line.sku,
      supplier: line.product.supplier,
      quantity: line.quantity,
      amount: new Money(line.charge).toFixed(),
      outcome: OUTCOMES[line.status],
    })),
    createdAt: order.createdAt,
    modifiedAt: order.modifiedAt,
    expiresAt: order.expiresAt,
    stage: STAGES[order.state],
    version,
  };
}

/** SKUs are stored as `,a,b,` so that one SKU is the text `,sku,` in it (a SKU holds no comma). */
function skusText(skus: readonly string[]): string {
  return `,${skus.join(",")},`;
}

const COLUMNS =
  "client_id, reference, id, state, wallet, total, charged, refunded, skus, lines, created_at, modified_at, expires_at, stage, version";

/**
 * The upsert of one row as the orders wrote it before the books (inserted if new, else updated only by a
 * newer (version, modified_at)): nothing in the service writes it now; tests make a copy with history
 * with it for the backfill.
 */
export function upsertStatement(db: D1Database, row: IndexRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO order_index (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
       ON CONFLICT (client_id, created_at, id) DO UPDATE SET state = excluded.state, total = excluded.total,
         charged = excluded.charged, refunded = excluded.refunded, skus = excluded.skus, lines = excluded.lines,
         modified_at = excluded.modified_at, expires_at = excluded.expires_at, stage = excluded.stage,
         version = excluded.version
       WHERE (excluded.version, excluded.modified_at) > (order_index.version, order_index.modified_at)`,
    )
    .bind(
      row.clientId,
      row.reference,
      row.id,
      row.state,
      row.wallet,
      row.total,
      row.charged,
      row.refunded,
      skusText(row.skus),
      JSON.stringify(row.lines),
      row.createdAt,
      row.modifiedAt,
      row.expiresAt,
      row.stage,
      row.version,
    );
}

// ---- the repair pass: the open orders and where a run stopped

/**
 * Where the last run that reached its bound stopped (the id after which the next one goes on), or "", and
 * the D1 rows the read touched.
 */
export async function repairCursor(db: D1Database): Promise<{ afterId: string; rowsRead: number }> {
  const { results, meta } = await db
    .prepare(`SELECT after_id FROM order_index_repair WHERE id = 1`)
    .all<{ after_id: string }>();
  return { afterId: results[0]?.after_id ?? "", rowsRead: meta.rows_read ?? 0 };
}

/** Stores where a run stopped; "" removes it (the run finished). */
export async function saveRepairCursor(db: D1Database, afterId: string): Promise<void> {
  if (afterId === "") await db.prepare(`DELETE FROM order_index_repair WHERE id = 1`).run();
  else
    await db
      .prepare(
        `INSERT INTO order_index_repair (id, after_id) VALUES (1, ?1)
         ON CONFLICT (id) DO UPDATE SET after_id = excluded.after_id`,
      )
      .bind(afterId)
      .run();
}

// ---- reading

/** The filters of a search or an export. */
export interface IndexFilter {
  clientId?: string;
  state?: OrderState;
  /** Unix ms, inclusive. */
  createdFrom?: number;
  createdTo?: number;
  /** A prefix of the client's reference: only with `clientId` (references are the client's own). */
  reference?: string;
  sku?: string;
}

/** Where a page starts: after this order in newest-first order. */
export interface IndexCursor {
  createdAt: number;
  id: string;
}

/** The cursor passed back as `after`: `<createdAt>.<orderId>`. */
export function cursorText(cursor: IndexCursor): string {
  return `${cursor.createdAt}.${cursor.id}`;
}

/** The cursor of `after`, or null when it is not one this service wrote. */
export function parseCursor(text: string): IndexCursor | null {
  const match = /^(\d{1,16})\.(ord_[0-9a-f]{64})$/.exec(text);
  return match === null ? null : { createdAt: Number(match[1]), id: match[2]! };
}

/** The filters of one client's list of its own orders. */
export type ClientIndexFilter = Omit<IndexFilter, "clientId" | "sku">;

// ---- the backfill of the client's books (order-index-backfill.ts)

/** An order's place in the index's key. */
export interface IndexKey {
  clientId: string;
  createdAt: number;
  id: string;
}

/** Where the backfill stands: after this key; how many orders it has asked; null when there is none. */
export interface BackfillState {
  after: IndexKey;
  orders: number;
  startedAt: number;
  finishedAt: number | null;
}

export async function backfillState(db: D1Database): Promise<BackfillState | null> {
  const row = await db.prepare(`SELECT * FROM order_index_backfill WHERE id = 1`).first<{
    after_client: string;
    after_created: number;
    after_id: string;
    orders: number;
    started_at: number;
    finished_at: number | null;
  }>();
  if (row === null) return null;
  return {
    after: { clientId: row.after_client, createdAt: row.after_created, id: row.after_id },
    orders: row.orders,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** Up to `limit` keys of the index after `after`, in key order: a range of the table's primary key. */
export async function indexKeysAfter(db: D1Database, after: IndexKey, limit: number): Promise<IndexKey[]> {
  if (!(await hasOrderIndex(db))) return [];
  const { results } = await db
    .prepare(
      `SELECT client_id, created_at, id FROM order_index WHERE (client_id, created_at, id) > (?1, ?2, ?3)
        ORDER BY client_id, created_at, id LIMIT ?4`,
    )
    .bind(after.clientId, after.createdAt, after.id, limit)
    .all<{ client_id: string; created_at: number; id: string }>();
  return results.map((row) => ({ clientId: row.client_id, createdAt: row.created_at, id: row.id }));
}

/** Whether `order_index` is still there (the backfill's last step drops it). */
async function hasOrderIndex(db: D1Database): Promise<boolean> {
  const found = await db
    .prepare(`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'order_index'`)
    .first<{ found: number }>();
  return found !== null;
}

/**
 * Drops the order index once the backfill has moved every row into the books: nothing reads or writes it
 * after that. Its indexes go with it (and any trigger left on it). A repeat drops nothing.
 */
export async function dropOrderIndex(db: D1Database): Promise<void> {
  await db.prepare(`DROP TABLE IF EXISTS order_index`).run();
}

/** Moves the backfill's cursor past what a step asked (and marks it finished when it found nothing more). */
export async function saveBackfill(
  db: D1Database,
  after: IndexKey,
  orders: number,
  finishedAt: number | null,
): Promise<void> {
  await db
    .prepare(
      `UPDATE order_index_backfill SET after_client = ?1, after_created = ?2, after_id = ?3, orders = ?4,
         finished_at = ?5 WHERE id = 1`,
    )
    .bind(after.clientId, after.createdAt, after.id, orders, finishedAt)
    .run();
}
