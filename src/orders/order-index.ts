/**
 * The order index (D1 `order_index`, schema/migrations/0012_order_index.sql): one row per order that has
 * moved money, for the operator's order search, its CSV export and the reconciliation. The order object is
 * the source of truth; the indexer (order-indexer.ts) writes its rows from the wallets' ledgers.
 *
 * Only this module reads or writes the tables.
 */
import { Money } from "../pricing/money";
import type { OrderRecord } from "./order-record";
import type { OrderState } from "./order-view-schemas";

/**
 * Each state's stage: 1 while the order is open (the indexer reads it again), 2 once it has ended. A write
 * of a lower stage never replaces a higher one. A `created` order is in the index only when a confirm cut
 * off midway had taken its charge (the ledger names it); otherwise it moved no money and is found by its
 * client and exact reference (the order object is named by them).
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
  createdAt: number;
  modifiedAt: number;
  expiresAt: number;
  /** 1 open, 2 ended. */
  stage: number;
}

/** The index row of `order`; pure. */
export function indexRowOf(order: OrderRecord): IndexRow {
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
    stage: STAGES[order.state],
  };
}

interface StoredRow {
  client_id: string;
  reference: string;
  id: string;
  state: string;
  wallet: string;
  total: string;
  charged: string;
  refunded: string;
  skus: string;
  created_at: number;
  modified_at: number;
  expires_at: number;
  stage: number;
}

/** SKUs are stored as `,a,b,` so that one SKU is the text `,sku,` in it (a SKU holds no comma). */
function skusText(skus: readonly string[]): string {
  return `,${skus.join(",")},`;
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
    skus: stored.skus.split(",").filter((sku) => sku !== ""),
    createdAt: stored.created_at,
    modifiedAt: stored.modified_at,
    expiresAt: stored.expires_at,
    stage: stored.stage,
  };
}

const COLUMNS =
  "client_id, reference, id, state, wallet, total, charged, refunded, skus, created_at, modified_at, expires_at, stage";

/**
 * The upsert of one row: inserted if new, else updated only by a later write (a higher stage, or the same
 * stage changed later). A repeat writes nothing; only `state` and the amounts change, so an update writes
 * the table's row and not the time index.
 */
export function upsertStatement(db: D1Database, row: IndexRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO order_index (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
       ON CONFLICT (client_id, reference) DO UPDATE SET state = excluded.state, total = excluded.total,
         charged = excluded.charged, refunded = excluded.refunded, modified_at = excluded.modified_at,
         expires_at = excluded.expires_at, stage = excluded.stage
       WHERE excluded.stage > order_index.stage
          OR (excluded.stage = order_index.stage AND excluded.modified_at > order_index.modified_at)`,
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
      row.createdAt,
      row.modifiedAt,
      row.expiresAt,
      row.stage,
    );
}

// ---- the indexer's cursors and open orders

/** How far the indexer has read each wallet object's ledger, by the object's name. */
export async function ledgerCursors(db: D1Database): Promise<Map<string, number>> {
  const { results } = await db
    .prepare(`SELECT wallet, after_seq FROM order_index_cursors`)
    .all<{ wallet: string; after_seq: number }>();
  return new Map(results.map((row) => [row.wallet, row.after_seq]));
}

/** Moves a wallet object's cursor on (never back: two runs at once both only move it forward). */
export function cursorStatement(db: D1Database, wallet: string, afterSeq: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO order_index_cursors (wallet, after_seq) VALUES (?1, ?2)
       ON CONFLICT (wallet) DO UPDATE SET after_seq = excluded.after_seq WHERE excluded.after_seq > after_seq`,
    )
    .bind(wallet, afterSeq);
}

/**
 * Up to `limit` ids of orders indexed while still open, in id order from `from` on, wrapping around to the
 * start (read through the partial index order_index_open): a run that cannot read them all starts where
 * chance puts it, so that over runs every open order is read again.
 */
export async function openOrderIds(db: D1Database, limit: number, from = ""): Promise<string[]> {
  const page = (after: string, below: string | null, count: number) =>
    db
      .prepare(
        `SELECT id FROM order_index INDEXED BY order_index_open WHERE stage < 2 AND id >= ?1` +
          (below === null ? "" : ` AND id < ?3`) +
          ` ORDER BY id LIMIT ?2`,
      )
      .bind(after, count, ...(below === null ? [] : [below]))
      .all<{ id: string }>();
  const ids = (await page(from, null, limit)).results.map((row) => row.id);
  if (ids.length < limit && from !== "")
    ids.push(...(await page("", from, limit - ids.length)).results.map((row) => row.id));
  return ids;
}

/** How many orders are indexed as still open. */
export async function openOrderCount(db: D1Database): Promise<number> {
  const row = await db
    .prepare(`SELECT COUNT(*) AS n FROM order_index INDEXED BY order_index_open WHERE stage < 2`)
    .first<{ n: number }>();
  return row?.n ?? 0;
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

/** Greater than any character a reference can hold, so that `prefix || PREFIX_END` bounds a prefix range. */
const PREFIX_END = String.fromCodePoint(0x10ffff);

/**
 * The query of a page, newest first (createdAt, then id). A client's reference prefix is a range of the
 * table's key, sorted afterwards; every other filter walks the time index from the newest order (or from
 * `createdTo`) and checks the rest on each row. test/orders/order-index.test.ts reads both plans.
 */
export function listQuery(
  filter: IndexFilter,
  after: IndexCursor | null,
  limit: number,
): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const bind = (value: string | number): string => {
    params.push(value);
    return `?${params.length}`;
  };
  const byReference = filter.clientId !== undefined && filter.reference !== undefined;
  if (filter.clientId !== undefined) where.push(`client_id = ${bind(filter.clientId)}`);
  if (byReference) {
    where.push(`reference >= ${bind(filter.reference!)}`, `reference < ${bind(filter.reference! + PREFIX_END)}`);
  }
  if (filter.state !== undefined) where.push(`state = ${bind(filter.state)}`);
  if (filter.sku !== undefined) where.push(`instr(skus, ${bind(`,${filter.sku},`)}) > 0`);
  if (filter.createdFrom !== undefined) where.push(`created_at >= ${bind(filter.createdFrom)}`);
  if (filter.createdTo !== undefined) where.push(`created_at <= ${bind(filter.createdTo)}`);
  if (after !== null) where.push(`(created_at, id) < (${bind(after.createdAt)}, ${bind(after.id)})`);
  const from = byReference ? "order_index" : "order_index INDEXED BY order_index_created";
  const sql =
    `SELECT ${COLUMNS} FROM ${from}` +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY created_at DESC, id DESC LIMIT ${bind(limit)}`;
  return { sql, params };
}

/** Up to `limit` rows after `after`, newest first. */
export async function listIndex(
  db: D1Database | D1DatabaseSession,
  filter: IndexFilter,
  after: IndexCursor | null,
  limit: number,
): Promise<IndexRow[]> {
  const { sql, params } = listQuery(filter, after, limit);
  const { results } = await db
    .prepare(sql)
    .bind(...params)
    .all<StoredRow>();
  return results.map(rowOf);
}

/** Every row that matches, `batch` rows at a time, newest first: an export walks them all. */
export async function* walkIndex(
  db: D1Database | D1DatabaseSession,
  filter: IndexFilter,
  batch = 500,
): AsyncGenerator<IndexRow[]> {
  let after: IndexCursor | null = null;
  for (;;) {
    const rows = await listIndex(db, filter, after, batch);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** The client's indexed orders among `references`, by reference. */
export async function indexRowsByReference(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  references: readonly string[],
): Promise<Map<string, IndexRow>> {
  const found = new Map<string, IndexRow>();
  const unique = [...new Set(references)];
  // D1 binds at most 100 parameters per statement.
  for (let start = 0; start < unique.length; start += 90) {
    const chunk = unique.slice(start, start + 90);
    const marks = chunk.map((_, at) => `?${at + 2}`).join(", ");
    const { results } = await db
      .prepare(`SELECT ${COLUMNS} FROM order_index WHERE client_id = ?1 AND reference IN (${marks})`)
      .bind(clientId, ...chunk)
      .all<StoredRow>();
    for (const stored of results) found.set(stored.reference, rowOf(stored));
  }
  return found;
}

/** The references of the client's indexed orders among `orderIds`, by order id (another client's are not found). */
export async function indexedReferences(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  orderIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const unique = [...new Set(orderIds)];
  // D1 binds at most 100 parameters per statement.
  for (let start = 0; start < unique.length; start += 90) {
    const chunk = unique.slice(start, start + 90);
    const marks = chunk.map((_, at) => `?${at + 2}`).join(", ");
    const { results } = await db
      .prepare(`SELECT id, reference FROM order_index WHERE client_id = ?1 AND id IN (${marks})`)
      .bind(clientId, ...chunk)
      .all<{ id: string; reference: string }>();
    for (const row of results) found.set(row.id, row.reference);
  }
  return found;
}
