/**
 * The order index (D1 `order_index`, schema/migrations/0017_order_index_from_orders.sql): one row per order
 * in any state, for the operator's order search, its CSV export, the reconciliation and a client's list of
 * its orders. The order object is the source of truth and writes its own row (writeIndexRow), from its
 * `index` timer a few seconds after each change; the repair pass (order-index-repair.ts) asks the orders
 * the index holds as open to write theirs again.
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
  lines: string;
  created_at: number;
  modified_at: number;
  expires_at: number;
  stage: number;
  version: number;
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
    lines: JSON.parse(stored.lines) as IndexLine[],
    createdAt: stored.created_at,
    modifiedAt: stored.modified_at,
    expiresAt: stored.expires_at,
    stage: stored.stage,
    version: stored.version,
  };
}

const COLUMNS =
  "client_id, reference, id, state, wallet, total, charged, refunded, skus, lines, created_at, modified_at, expires_at, stage, version";

/**
 * The upsert of one row: inserted if new, else updated only by a newer (version, modified_at) of the order.
 * A repeat or a late write writes nothing. The key and `created_at` never change, so an update writes the
 * table's row alone (and the open orders' index when the order ends).
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

/**
 * Writes `order`'s row at `version` (the order object's `index` timer runs it, through the capability the
 * composition root hands the object); answers the D1 rows written, index entries included (0: the index
 * already had this version or a newer one).
 */
export async function writeIndexRow(db: D1Database, order: OrderRecord, version: number): Promise<number> {
  const result = await upsertStatement(db, indexRowOf(order, version)).run();
  return result.meta.rows_written ?? 0;
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

/**
 * Up to `limit` ids of orders the index holds as still open, in id order after `after` (read through the
 * partial index order_index_open, which holds those rows alone: its size follows the open orders, not
 * the orders or wallets there have ever been), and the D1 rows the read touched.
 */
export async function openOrderIds(
  db: D1Database,
  after: string,
  limit: number,
): Promise<{ ids: string[]; rowsRead: number }> {
  const { results, meta } = await db
    .prepare(`SELECT id FROM order_index INDEXED BY order_index_open WHERE stage < 2 AND id > ?1 ORDER BY id LIMIT ?2`)
    .bind(after, limit)
    .all<{ id: string }>();
  return { ids: results.map((row) => row.id), rowsRead: meta.rows_read ?? 0 };
}

/**
 * How current the index is: the creation time of its newest order (the last entry of the time index, one
 * row read) and how many orders it holds as still open.
 */
export async function indexFreshness(db: D1Database): Promise<{ newestCreatedAt: number | null; open: number }> {
  const newest = await db
    .prepare(`SELECT created_at FROM order_index INDEXED BY order_index_created ORDER BY created_at DESC LIMIT 1`)
    .first<{ created_at: number }>();
  return { newestCreatedAt: newest?.created_at ?? null, open: await openOrderCount(db) };
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
 * The query of a page, newest first (createdAt, then id). With a client it is a range of the table's key
 * (client_id, created_at, id), read newest first with no sort: a reference prefix and every other filter
 * are checked on the client's rows. Without one it walks the time index from the newest order (or from
 * `createdTo`) and checks the rest on each row. test/order-index/order-index.test.ts reads both plans.
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
  const byClient = filter.clientId !== undefined;
  if (byClient) where.push(`client_id = ${bind(filter.clientId!)}`);
  if (byClient && filter.reference !== undefined) {
    where.push(`reference >= ${bind(filter.reference)}`, `reference < ${bind(filter.reference + PREFIX_END)}`);
  }
  if (filter.state !== undefined) where.push(`state = ${bind(filter.state)}`);
  if (filter.sku !== undefined) where.push(`instr(skus, ${bind(`,${filter.sku},`)}) > 0`);
  if (filter.createdFrom !== undefined) where.push(`created_at >= ${bind(filter.createdFrom)}`);
  if (filter.createdTo !== undefined) where.push(`created_at <= ${bind(filter.createdTo)}`);
  if (after !== null) where.push(`(created_at, id) < (${bind(after.createdAt)}, ${bind(after.id)})`);
  const from = byClient ? "order_index" : "order_index INDEXED BY order_index_created";
  const sql =
    `SELECT ${COLUMNS} FROM ${from}` +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY created_at DESC, id DESC LIMIT ${bind(limit)}`;
  return { sql, params };
}

/** The filters of one client's list of its own orders. */
export type ClientIndexFilter = Omit<IndexFilter, "clientId" | "sku">;

/**
 * Up to `limit` of one client's orders after `after`, newest first (createdAt, then id), read as a range of
 * the table's key: a page costs the rows it reads, however many orders other clients have, and orders
 * added meanwhile do not shift the pages after `after`. For a client's own list of its orders.
 */
export async function listClientIndex(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  filter: ClientIndexFilter,
  after: IndexCursor | null,
  limit: number,
): Promise<IndexRow[]> {
  return listIndex(db, { ...filter, clientId }, after, limit);
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

/**
 * The client's indexed orders among `references`, by reference: read from the client's range of the key
 * (no index by reference: a row would pay for one on every write).
 */
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

/** Where the reconciliation's walk of the index by creation stands: after this order. */
export interface CreatedCursor {
  createdAt: number;
  id: string;
}

/**
 * Up to `limit` rows of orders created after `after` and by `to` (unix ms, inclusive), oldest first, through
 * the time index the searches use: the reconciliation's feed of orders. It needs no index of its own (each
 * entry is a billed row on every write): an order still open when read is kept among the reconciliation's
 * deferred orders until it ends, instead of being found again by its change time.
 */
export async function indexRowsCreatedAfter(
  db: D1Database | D1DatabaseSession,
  after: CreatedCursor,
  to: number,
  limit: number,
): Promise<IndexRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM order_index INDEXED BY order_index_created
        WHERE (created_at, id) > (?1, ?2) AND created_at <= ?3 ORDER BY created_at, id LIMIT ?4`,
    )
    .bind(after.createdAt, after.id, to, limit)
    .all<StoredRow>();
  return results.map(rowOf);
}

/**
 * How many orders were created after `after` and by `to` (what a run beyond its budget leaves to the next),
 * and how many of them by `overdueBy` (those waiting past the bound).
 */
export async function indexRowsCreatedCount(
  db: D1Database | D1DatabaseSession,
  after: CreatedCursor,
  to: number,
  overdueBy: number,
): Promise<{ left: number; overdue: number }> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE created_at <= ?4) AS overdue
         FROM order_index INDEXED BY order_index_created WHERE (created_at, id) > (?1, ?2) AND created_at <= ?3`,
    )
    .bind(after.createdAt, after.id, to, overdueBy)
    .first<{ n: number; overdue: number }>();
  return { left: row?.n ?? 0, overdue: row?.overdue ?? 0 };
}

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
  const { results } = await db
    .prepare(
      `SELECT client_id, created_at, id FROM order_index WHERE (client_id, created_at, id) > (?1, ?2, ?3)
        ORDER BY client_id, created_at, id LIMIT ?4`,
    )
    .bind(after.clientId, after.createdAt, after.id, limit)
    .all<{ client_id: string; created_at: number; id: string }>();
  return results.map((row) => ({ clientId: row.client_id, createdAt: row.created_at, id: row.id }));
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
