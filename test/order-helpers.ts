/**
 * Helpers for the order, pricing and wallet suites. test/helpers.ts is shared; additions live here.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { shardOf, writeToBooks } from "../src/books/books-writer";
import { dayOf } from "../src/books/shard-rules";
import { upsertStatement, type IndexRow } from "../src/order-index/order-index-store";
import type { OrderRecord } from "../src/orders/order-record";
import { OrderStore } from "../src/orders/order-store";
import type { TimerKind } from "../src/orders/order-timers";
import type { LedgerEntry } from "../src/wallets/ledger";
import { addClient, orderStub, wallet, type ApiCall } from "./helpers";

export const MESSAGES = {
  tooBig: "Requested product list is bigger than allowed",
  notFormatted: "Your product list is not formatted well",
  quoteMismatch: "The entered quote doesn't match the SKU.",
  notInRange: "The entered quote is not in range",
  insufficient: "You have insufficient funds in your wallet to create this order",
  productNotFound: "One or more product in the sent list are not found.",
  exchange: "Your requested exchange is not supported",
  outOfStock: "Requested item is out of stock",
  auth: "Authentication credentials are missing or invalid",
  notFound: "Not Found",
  expired: "Expired",
  noOrderId: "Body has no valid orderId",
  invalidBody: "Invalid request body",
  alreadyConfirmed: "Order already confirmed",
  referenceUsed: "Reference already used",
} as const;

export function uid(prefix = "t"): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** A new client (unique id) with the given wallets; returns its id and API key. */
export async function freshClient(
  wallets: Record<string, string> = { USD: "1000" },
  prefix = "c",
): Promise<{ id: string; key: string }> {
  const id = uid(prefix);
  const key = await addClient(id, wallets);
  return { id, key };
}

const ERROR_KEYS = new Set(["message", "code", "details"]);

/**
 * An error response as the API fixes it: exact status, exact message, `{message, code, details?}` and
 * nothing else, `code` snake_case, and an X-Request-Id.
 */
export function expectError(res: ApiCall, status: number, message: string, code?: string): void {
  const context = JSON.stringify(res.body);
  expect(res.status, context).toBe(status);
  expect(typeof res.body, context).toBe("object");
  expect(res.body.message, context).toBe(message);
  expect(res.body.code, context).toMatch(/^[a-z][a-z0-9_]*$/);
  if (code !== undefined) expect(res.body.code, context).toBe(code);
  for (const field of Object.keys(res.body))
    expect(ERROR_KEYS.has(field), `unexpected field ${field} in ${context}`).toBe(true);
  if ("details" in res.body)
    expect(
      typeof res.body.details === "object" && res.body.details !== null && !Array.isArray(res.body.details),
      context,
    ).toBe(true);
  expect(res.headers.get("x-request-id"), "X-Request-Id").toBeTruthy();
}

export function expectOk(res: ApiCall): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.message).toBe("string");
  expect(res.headers.get("x-request-id")).toBeTruthy();
  return res.body.data;
}

/** The order document as the object stores it (read through its storage module, not its cache). */
export async function storedOrder(orderId: string): Promise<OrderRecord> {
  return runInDurableObject(orderStub(orderId), (_instance, state) => {
    const order = new OrderStore(state.storage).load();
    if (order === null) throw new Error(`no stored order ${orderId}`);
    return order;
  });
}

/** Waits until the order has stored an end state (processing started by confirm runs after its answer). */
export async function ended(orderId: string): Promise<string> {
  for (let wait = 0; wait < 300; wait += 1) {
    const { state } = await storedOrder(orderId);
    if (["successful", "partial", "failed", "rejected"].includes(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${orderId} never ended`);
}

/**
 * The order's storage module as its live object holds it: its document in memory, where a timer whose
 * removal is not stored on its own (the `index` timer once the books have its write) is already gone.
 */
export function liveStore(instance: unknown, state: DurableObjectState): OrderStore {
  return (instance as { store?: OrderStore }).store ?? new OrderStore(state.storage);
}

/** The order's timers as its object holds them (liveStore). */
export async function timersOf(orderId: string): Promise<{ kind: string; due_at: number }[]> {
  return runInDurableObject(orderStub(orderId), (instance, state) =>
    liveStore(instance, state)
      .timers()
      .map((timer) => ({ kind: timer.kind, due_at: timer.dueAt }))
      .sort((a, b) => a.kind.localeCompare(b.kind)),
  );
}

/** The time the order object's alarm is stored for (null: none). */
export async function storedAlarm(orderId: string): Promise<number | null> {
  return runInDurableObject(orderStub(orderId), (_instance, state) => state.storage.getAlarm());
}

/**
 * Runs the order's alarm until it has no timer left (processing started by confirm runs after the answer,
 * so it is waited for); fails when timers remain after 20 runs.
 */
export async function drainTimers(orderId: string): Promise<void> {
  for (let run = 0; run < 20 && (await timersOf(orderId)).length > 0; run += 1) {
    await runDurableObjectAlarm(orderStub(orderId));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(await timersOf(orderId)).toEqual([]);
}

/**
 * Rewrites the stored order through its object's storage module (as any change of it is written: with
 * what the object holds in memory) and evicts the object, so that its next instance reads what was
 * written, as a restarted object would; timers are left as they are unless `timers` sets some.
 */
export async function rewriteStoredOrder(
  orderId: string,
  change: (doc: OrderRecord) => void,
  timers: Partial<Record<TimerKind, number | null>> = {},
): Promise<OrderRecord> {
  const doc = await runInDurableObject(orderStub(orderId), async (instance, state) => {
    const store = liveStore(instance, state);
    const doc = store.load();
    if (doc === null) throw new Error(`no stored order ${orderId}`);
    change(doc);
    store.save(doc, timers, null);
    // Armed a minute ahead (alarms outlive a test); runDurableObjectAlarm runs it at once.
    if (Object.keys(timers).length > 0) await state.storage.setAlarm(Date.now() + 60_000);
    return doc;
  });
  await evictDurableObject(orderStub(orderId));
  return doc;
}

/**
 * Moves the order's expiresAt into the past "through the clock": the stored document is rewritten and the
 * object's in-memory copy dropped, but the expiry alarm (and its timer row) is left as it was, so the alarm
 * has not run.
 */
export async function backdateExpiry(orderId: string, msAgo = 1_000): Promise<number> {
  const doc = await rewriteStoredOrder(orderId, (doc) => {
    doc.expiresAt = Date.now() - msAgo;
  });
  return doc.expiresAt;
}

/** Makes the expiry timer due now (the alarm handler only runs timers whose due time has come). */
export async function makeExpiryDue(orderId: string): Promise<void> {
  await runInDurableObject(orderStub(orderId), (instance, state) => {
    liveStore(instance, state).schedule("expire", Date.now() - 1);
  });
}

/** Expiry as it happens in production: expiresAt passed, and the alarm fires. Returns whether an alarm ran. */
export async function expireByAlarm(orderId: string): Promise<boolean> {
  await backdateExpiry(orderId);
  await makeExpiryDue(orderId);
  return runDurableObjectAlarm(orderStub(orderId));
}

export async function ledgerOf(clientId: string, currency: string): Promise<LedgerEntry[]> {
  return wallet(clientId, currency).entries(0, 100_000);
}

/** Available (unreserved, unsold) codes of one SKU and value in D1. */
export async function availableCodes(sku: string, value: string): Promise<number> {
  const row = await env.DB.prepare(
    `SELECT COUNT(*) AS n FROM codes WHERE sku = ?1 AND value = ?2 AND status = 'available'`,
  )
    .bind(sku, value)
    .first<{ n: number }>();
  return row!.n;
}

export async function codesOfOrder(orderId: string): Promise<{ sku: string; value: string; status: string }[]> {
  const { results } = await env.DB.prepare(`SELECT sku, value, status FROM codes WHERE order_id = ?1 ORDER BY id`)
    .bind(orderId)
    .all<{
      sku: string;
      value: string;
      status: string;
    }>();
  return results;
}

/** Adds `count` inventory codes for a SKU/value (unique pins). */
export async function addCodes(sku: string, value: string, count: number): Promise<void> {
  const now = Date.now();
  const statements = Array.from({ length: count }, () => {
    const pin = uid(`${sku}-${value}`);
    return env.DB.prepare(`INSERT INTO codes (sku, value, pin, link, created_at) VALUES (?1, ?2, ?3, ?4, ?5)`).bind(
      sku,
      value,
      pin,
      `https://redeem.example.com/${pin}`,
      now,
    );
  });
  if (statements.length > 0) await env.DB.batch(statements);
}

export async function setRate(base: string, target: string, rate: string): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO exchange_rates (base_currency, target_currency, rate, updated_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (base_currency, target_currency) DO UPDATE SET rate = excluded.rate, updated_at = excluded.updated_at`,
  )
    .bind(base, target, rate, Date.now())
    .run();
}

export async function setDeal(
  clientId: string,
  sku: string,
  deal: {
    fee?: [string, "percentage" | "fixed"];
    discount?: [string, "percentage" | "fixed"];
    state?: "active" | "none";
  },
): Promise<void> {
  const [feeAmount, feeMode] = deal.fee ?? ["0", "fixed"];
  const [discountAmount, discountMode] = deal.discount ?? ["0", "fixed"];
  await env.DB.prepare(
    `INSERT OR REPLACE INTO deals (client_id, sku, deal_state, fee_amount, fee_mode, discount_amount, discount_mode, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
  )
    .bind(clientId, sku, deal.state ?? "active", feeAmount, feeMode, discountAmount, discountMode, Date.now())
    .run();
}

export async function addProduct(product: {
  sku: string;
  productType: "range" | "fixed";
  currency: string;
  quotes?: string[];
  min?: string;
  max?: string;
  supplier?: "inventory" | "sandbox" | "upstream";
  active?: boolean;
}): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO products (sku, name, product_type, currency, country, region, quotes, min_quote, max_quote, supplier, supplier_config, active, updated_at)
       VALUES (?1, ?2, ?3, ?4, 'XX', 'Test', ?5, ?6, ?7, ?8, '{}', ?9, ?10)`,
  )
    .bind(
      product.sku,
      `Test ${product.sku}`,
      product.productType,
      product.currency,
      product.quotes ? JSON.stringify(product.quotes) : null,
      product.min ?? null,
      product.max ?? null,
      product.supplier ?? "sandbox",
      product.active === false ? 0 : 1,
      Date.now(),
    )
    .run();
}

/** The orders that hold part of the wallet's balance (its `holds` table), by order id. */
export async function holdsOf(
  clientId: string,
  currency: string,
  generation = 0,
  region: string | null = null,
): Promise<string[]> {
  return runInDurableObject(wallet(clientId, currency, generation, region), (_instance, state) =>
    state.storage.sql
      .exec<{ order_id: string }>(`SELECT order_id FROM holds ORDER BY order_id`)
      .toArray()
      .map((row) => row.order_id),
  );
}

/**
 * Has each order write its row to the order index now (what its `index` timer does a few seconds after a
 * change), through the object's own writer; answers the D1 rows written.
 */
export async function indexNow(...orderIds: string[]): Promise<number> {
  let written = 0;
  for (const orderId of orderIds) written += await orderStub(orderId).writeIndex();
  return written;
}

/**
 * Runs the order's `index` timer now if it is the next one due (as it runs a couple of seconds after a
 * change), so that the alarm runs a test counts are the other timers'; answers whether it ran.
 */
export async function runIndexTimer(orderId: string): Promise<boolean> {
  const next = (await timersOf(orderId)).sort((a, b) => a.due_at - b.due_at)[0];
  if (next?.kind !== "index") return false;
  return runDurableObjectAlarm(orderStub(orderId));
}

/** The order index's row of an order, as D1 holds it, or null. */
export async function indexRow(orderId: string): Promise<Record<string, unknown> | null> {
  return env.DB.prepare(`SELECT * FROM order_index WHERE id = ?1`).bind(orderId).first();
}

/**
 * An index row with no order object behind it, to write straight into the index: an ended order of one
 * DEMO-US-RANGE line at 5 USD, created at `createdAt` (now unless given) and changed 10 ms later, expiring
 * 10 minutes after its create; `overrides` set any other field.
 */
export function bareIndexRow(overrides: Partial<IndexRow> = {}): IndexRow {
  const createdAt = overrides.createdAt ?? Date.now();
  return {
    id: `ord_${crypto.randomUUID().replaceAll("-", "").repeat(2)}`,
    clientId: "index-row",
    reference: uid("row"),
    state: "successful",
    wallet: "USD",
    total: "5",
    charged: "5",
    refunded: "0",
    skus: ["DEMO-US-RANGE"],
    createdAt,
    modifiedAt: createdAt + 10,
    expiresAt: createdAt + 600_000,
    stage: 2,
    lines: [],
    version: 1,
    ...overrides,
  };
}

/** Applies an order index row as the order's writer does; answers the D1 rows it wrote, as D1 bills them. */
export async function writeIndexRow(db: D1Database, row: IndexRow): Promise<number> {
  const result = await upsertStatement(db, row).run();
  return result.meta.rows_written ?? 0;
}

/**
 * Writes a row with no order object behind it straight into its client's books (bareIndexRow's fields), as
 * the order's writer does; answers the shard's rows written.
 */
export async function writeBooksRow(row: IndexRow): Promise<number> {
  const { stage: _stage, ...fields } = row;
  return writeToBooks(env.BOOKS, { ...fields, deliveredCodes: [] });
}

/** Removes an order's row from its shard (a test's order whose books write has not happened yet). */
export async function removeBooksRow(order: { id: string; clientId: string; createdAt: number }): Promise<void> {
  const address = { clientId: order.clientId, day: dayOf(order.createdAt), part: 0 };
  await runInDurableObject(shardOf(env.BOOKS, address), (_instance, state) => {
    state.storage.sql.exec(`DELETE FROM orders WHERE created_at = ?1 AND id = ?2`, order.createdAt, order.id);
  });
}

/**
 * Has every shard in the books' directory publish its counters to D1 now (what its alarm does within the
 * hour of a change); answers the D1 rows written.
 */
export async function publishBooks(): Promise<number> {
  const { results } = await env.DB.prepare(`SELECT DISTINCT client_id, day, part FROM books_days`).all<{
    client_id: string;
    day: number;
    part: number;
  }>();
  let written = 0;
  for (const row of results)
    written += await shardOf(env.BOOKS, { clientId: row.client_id, day: row.day, part: row.part }).publishNow();
  return written;
}
