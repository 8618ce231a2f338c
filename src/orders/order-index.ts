/**
 * The order index (D1 `order_index` and `order_index_skus`, schema/migrations/0006_order_index.sql): one
 * row per order for lists, exports and reconciliation. The order object is the source of truth; it marks
 * its row stale in the same write as a state change (src/orders/order-store.ts) and its alarm applies the
 * row here, as an upsert that only a newer version passes. The index may lag an order by seconds.
 *
 * Only this module reads or writes the two tables.
 */
import { Money } from "../pricing/money";
import type { OrderRecord } from "./order-record";
import type { OrderState } from "./view-schemas";

/** States in which the order's wallet has been charged its total. */
const CHARGED_STATES: ReadonlySet<OrderState> = new Set(["confirmed", "processing", "successful", "partial", "failed"]);

/** One order as the index holds it; amounts are exact decimal strings in the wallet's currency. */
export interface IndexRow {
  id: string;
  clientId: string;
  reference: string;
  state: OrderState;
  wallet: string;
  total: string;
  /** What the wallet was charged: the total once confirmed, 0 before and for a rejected order. */
  charged: string;
  /** What failed lines credited back. */
  refunded: string;
  skus: string[];
  createdAt: number;
  modifiedAt: number;
  expiresAt: number;
  /** Grows with every change of the order the index shows; an older version never overwrites a newer. */
  version: number;
}

/** The index row of `order` at `version`; pure. */
export function indexRowOf(order: OrderRecord, version: number): IndexRow {
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
    createdAt: order.createdAt,
    modifiedAt: order.modifiedAt,
    expiresAt: order.expiresAt,
    version,
  };
}

interface StoredRow {
  client_id: string;
  created_at: number;
  id: string;
  reference: string;
  state: string;
  wallet: string;
  total: string;
  charged: string;
  refunded: string;
  skus: string;
  modified_at: number;
  expires_at: number;
  version: number;
}

function rowOf(stored: StoredRow): IndexRow {
  return {
    id: stored.id,
    clientId: stored.client_id,
    reference: stored.reference,
    state: stored.state as OrderState,
    wallet: stored.wallet,
    total: stored.total,
    charged: stored.charged,
    refunded: stored.refunded,
    skus: JSON.parse(stored.skus) as string[],
    createdAt: stored.created_at,
    modifiedAt: stored.modified_at,
    expiresAt: stored.expires_at,
    version: stored.version,
  };
}

const COLUMNS = "client_id, created_at, id, reference, state, wallet, total, charged, refunded, skus, modified_at, expires_at, version";

/**
 * The upsert of one row: inserted if new, else updated only by a newer version. Its SKUs are inserted
 * once (they never change; a repeat writes nothing). One batch, so one transaction.
 */
function upsertStatements(db: D1Database, row: IndexRow): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO order_index (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (client_id, created_at, id) DO UPDATE SET state = excluded.state, total = excluded.total, charged = excluded.charged,
           refunded = excluded.refunded, modified_at = excluded.modified_at, expires_at = excluded.expires_at, version = excluded.version
         WHERE excluded.version > order_index.version`,
      )
      .bind(row.clientId, row.createdAt, row.id, row.reference, row.state, row.wallet, row.total, row.charged, row.refunded, JSON.stringify(row.skus), row.modifiedAt, row.expiresAt, row.version),
    ...row.skus.map((sku) =>
      db.prepare(`INSERT OR IGNORE INTO order_index_skus (sku, created_at, order_id, client_id) VALUES (?1, ?2, ?3, ?4)`).bind(sku, row.createdAt, row.id, row.clientId),
    ),
  ];
}

/** Applies the row; returns the D1 rows it wrote (index entries included), as D1 bills them. */
export async function writeIndexRow(db: D1Database, row: IndexRow): Promise<number> {
  const results = await db.batch(upsertStatements(db, row));
  return results.reduce((written, result) => written + (result.meta.rows_written ?? 0), 0);
}

// ---- reading

/** The filters of a list or an export. `clientId` is the caller's own for a client. */
export interface IndexFilter {
  clientId?: string;
  state?: OrderState;
  /** Unix ms, inclusive. */
  createdFrom?: number;
  createdTo?: number;
  /** A prefix of the client's reference (a client's own orders only: see the operator's route). */
  reference?: string;
  sku?: string;
}

/** Where a page starts: after this order in newest-first order. */
export interface IndexCursor {
  createdAt: number;
  id: string;
}

/** The cursor a client passes back as `after`: `<createdAt>.<orderId>`. */
export function cursorText(cursor: IndexCursor): string {
  return `${cursor.createdAt}.${cursor.id}`;
}

/** The cursor of `after`, or null when it is not one this service wrote. */
export function parseCursor(text: string): IndexCursor | null {
  const match = /^(\d{1,16})\.(ord_[0-9a-f]{64})$/.exec(text);
  return match === null ? null : { createdAt: Number(match[1]), id: match[2]! };
}

/** Greater than any character a reference can hold, so that `prefix || PREFIX_END` bounds a prefix range. */
const PREFIX_END = String.fromCodePoint(0x10ffff);

/**
 * The query of a page: every filter narrows an index range, newest first, so that no filter scans the
 * table (test/orders/order-index.test.ts reads each plan). The index is chosen here rather than left to
 * the planner, which without statistics may walk the whole of a client's orders for a reference prefix.
 */
export function listQuery(filter: IndexFilter, after: IndexCursor | null, limit: number): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const bind = (value: string | number): string => {
    params.push(value);
    return `?${params.length}`;
  };
  const table = filter.sku !== undefined ? "o" : "order_index";
  const col = (name: string): string => `${table}.${name}`;
  let from: string;
  if (filter.sku !== undefined) {
    // The SKU's entries, newest first, each joined to its row by the row's key.
    from = `order_index_skus s JOIN order_index o ON o.client_id = s.client_id AND o.created_at = s.created_at AND o.id = s.order_id`;
    where.push(`s.sku = ${bind(filter.sku)}`);
    if (filter.clientId !== undefined) where.push(`s.client_id = ${bind(filter.clientId)}`);
  } else {
    const index =
      filter.clientId !== undefined
        ? filter.reference !== undefined
          ? "order_index_client_reference"
          : filter.state !== undefined
            ? "order_index_client_state"
            : null
        : filter.state !== undefined
          ? "order_index_state"
          : "order_index_created";
    from = index === null ? "order_index" : `order_index INDEXED BY ${index}`;
    if (filter.clientId !== undefined) where.push(`client_id = ${bind(filter.clientId)}`);
  }
  const orderCols = filter.sku !== undefined ? { createdAt: "s.created_at", id: "s.order_id" } : { createdAt: "created_at", id: "id" };
  if (filter.state !== undefined) where.push(`${col("state")} = ${bind(filter.state)}`);
  if (filter.reference !== undefined) {
    where.push(`${col("reference")} >= ${bind(filter.reference)}`, `${col("reference")} < ${bind(filter.reference + PREFIX_END)}`);
  }
  if (filter.createdFrom !== undefined) where.push(`${orderCols.createdAt} >= ${bind(filter.createdFrom)}`);
  if (filter.createdTo !== undefined) where.push(`${orderCols.createdAt} <= ${bind(filter.createdTo)}`);
  if (after !== null) where.push(`(${orderCols.createdAt}, ${orderCols.id}) < (${bind(after.createdAt)}, ${bind(after.id)})`);
  const sql =
    `SELECT ${COLUMNS.split(", ").map(col).join(", ")} FROM ${from}` +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY ${orderCols.createdAt} DESC, ${orderCols.id} DESC LIMIT ${bind(limit)}`;
  return { sql, params };
}

/** Up to `limit` rows after `after`, newest first (createdAt, then id). */
export async function listIndex(db: D1Database | D1DatabaseSession, filter: IndexFilter, after: IndexCursor | null, limit: number): Promise<IndexRow[]> {
  const { sql, params } = listQuery(filter, after, limit);
  const { results } = await db.prepare(sql).bind(...params).all<StoredRow>();
  return results.map(rowOf);
}

/** Every row that matches, a batch of `batch` rows at a time, newest first: an export walks them all. */
export async function* walkIndex(db: D1Database | D1DatabaseSession, filter: IndexFilter, batch = 500): AsyncGenerator<IndexRow[]> {
  let after: IndexCursor | null = null;
  for (;;) {
    const rows = await listIndex(db, filter, after, batch);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** The client's indexed orders among `orderIds` (a client's key range, so no other client's row). */
export async function indexRowsOf(db: D1Database | D1DatabaseSession, clientId: string, orderIds: readonly string[]): Promise<Map<string, IndexRow>> {
  const found = new Map<string, IndexRow>();
  const unique = [...new Set(orderIds)];
  // D1 binds at most 100 parameters per statement.
  for (let start = 0; start < unique.length; start += 90) {
    const chunk = unique.slice(start, start + 90);
    const marks = chunk.map((_, at) => `?${at + 2}`).join(", ");
    const { results } = await db.prepare(`SELECT ${COLUMNS} FROM order_index WHERE client_id = ?1 AND id IN (${marks})`).bind(clientId, ...chunk).all<StoredRow>();
    for (const stored of results) found.set(stored.id, rowOf(stored));
  }
  return found;
}
