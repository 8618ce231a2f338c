/**
 * The orders a person must see, from the books (D1 `books_exceptions`, schema/migrations/0030_books.sql):
 * one row per order that ended failed or partial, written by its shard on the write that ends it so. Only
 * this module writes the table.
 */
import type { BookRow } from "./row-rules";

/** The states that put an order among the exceptions. */
export function isException(state: BookRow["state"]): boolean {
  return state === "failed" || state === "partial";
}

/** One exception: the order, its failed lines (SKU, supplier, quantity, amount) and when it was found. */
export interface BooksException {
  clientId: string;
  orderId: string;
  createdAt: number;
  /** Only such orders are recorded (isException). */
  state: "failed" | "partial";
  wallet: string;
  reference: string;
  lines: { sku: string; supplier: string; quantity: number; amount: string }[];
  foundAt: number;
}

/** Adds the order among the exceptions; a repeat writes nothing. Answers the rows written. */
export async function recordException(db: D1Database, clientId: string, row: BookRow, now: number): Promise<number> {
  const failed = row.lines
    .filter((line) => line.outcome === "failed")
    .map(({ sku, supplier, quantity, amount }) => ({ sku, supplier, quantity, amount }));
  const result = await db
    .prepare(
      `INSERT INTO books_exceptions (client_id, order_id, created_at, state, wallet, reference, lines, found_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (client_id, order_id) DO NOTHING`,
    )
    .bind(clientId, row.id, row.createdAt, row.state, row.wallet, row.reference, JSON.stringify(failed), now)
    .run();
  return result.meta.rows_written ?? 0;
}

type ExceptionRow = Record<string, unknown>;

function exceptionOf(row: ExceptionRow): BooksException {
  return {
    clientId: row.client_id as string,
    orderId: row.order_id as string,
    createdAt: row.created_at as number,
    state: row.state as BooksException["state"],
    wallet: row.wallet as string,
    reference: row.reference as string,
    lines: JSON.parse(row.lines as string) as BooksException["lines"],
    foundAt: row.found_at as number,
  };
}

/** The exceptions found at or after `since`, newest first, at most `limit`. */
export async function exceptionsSince(
  db: D1Database | D1DatabaseSession,
  since: number,
  limit: number,
): Promise<BooksException[]> {
  const { results } = await db
    .prepare(`SELECT * FROM books_exceptions WHERE found_at >= ?1 ORDER BY found_at DESC, order_id LIMIT ?2`)
    .bind(since, limit)
    .all<ExceptionRow>();
  return results.map(exceptionOf);
}

/** A client's exceptions, newest found first, at most `limit`. */
export async function exceptionsOf(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  limit: number,
): Promise<BooksException[]> {
  const { results } = await db
    .prepare(`SELECT * FROM books_exceptions WHERE client_id = ?1 ORDER BY found_at DESC, order_id LIMIT ?2`)
    .bind(clientId, limit)
    .all<ExceptionRow>();
  return results.map(exceptionOf);
}
