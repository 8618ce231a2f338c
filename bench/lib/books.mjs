// The client's books in `npm run bench:index` (docs/books.md): what the instrumented build counted over a
// fill, per order, and what that costs and projects to, by the prices of bench/prices/. Pure functions of
// two cost snapshots (GET /__bench/cost before and after the fill) and the number of orders made.
import { readFileSync } from "node:fs";

const PRICES = JSON.parse(readFileSync(new URL("../prices/cloudflare-workers-paid.json", import.meta.url), "utf8"));
const ROW = PRICES.d1.rowsWrittenPerMillion; // USD per million rows, D1 and SQLite alike
const REQUEST = PRICES.durableObjects.requestsPerMillion;

/** Rows a new shard writes once: its two tables (SQLite's own rows) and its meta (one key). */
export const SHARD_CREATION_SQL_ROWS = 2;
/** D1 rows of a (client, day, wallet) registered: its row and its day index entry. */
export const REGISTRATION_D1_ROWS = 2;
/** The typical client of the projection: 100 orders a day (100 million orders over 1,000,000 wallets). */
export const ORDERS_PER_CLIENT_DAY = 100;
/** Publishes of such a client's day, at most: one an hour while it has changes (publish-rules.ts). */
export const PUBLISHES_PER_QUIET_DAY = 24;

const at = (snapshot, path) => path.split(".").reduce((value, key) => value?.[key], snapshot) ?? 0;
const fixed = (value, digits = 2) => Number(value).toFixed(digits);

/** The counts of the fill, per order (and per shard where a shard's day pays once), and their price. */
export function booksCosts(before, after, made) {
  const delta = (path) => at(after, path) - at(before, path);
  const shards = delta("kv.byClass.BooksObject");
  const shardSqlRows = delta("sqlite.byClass.BooksObject.rowsWritten");
  // The account's events (GET /events) live in the shards too, but are priced on their own: the books'
  // budget covers the index, the figures and the deliveries.
  const eventRows = delta("sqlite.byClass.BooksObject.byTable.events");
  const perOrder = {
    shardRows: (shardSqlRows - eventRows - SHARD_CREATION_SQL_ROWS * shards) / made,
    eventRows: eventRows / made,
    booksD1Rows: delta("d1.byOwner.BooksObject.rowsWritten") / made,
    orderD1Rows: delta("d1.byOwner.OrderObject.rowsWritten") / made,
    objectRows: (delta("kv.keysWritten") + delta("sqlite.rowsWritten") - shardSqlRows - shards) / made,
    // "BOOKS.write" holds a dot: read by key.
    shardWrites: ((after.doCalls?.["BOOKS.write"] ?? 0) - (before.doCalls?.["BOOKS.write"] ?? 0)) / made,
    orderAlarms: delta("doAlarms.OrderObject") / made,
    booksAlarms: delta("doAlarms.BooksObject") / made,
  };
  const shardDay = { rows: SHARD_CREATION_SQL_ROWS + 1, d1Rows: REGISTRATION_D1_ROWS };
  const ordersPerShard = shards === 0 ? 0 : made / shards;
  // Steady per order: its row and counters, the shard's request and the order's alarm run.
  const steady = perOrder.shardRows * ROW + perOrder.shardWrites * REQUEST + perOrder.orderAlarms * REQUEST;
  // Once per (client, day): the shard created and the day registered, spread over the typical client's day,
  // and its publishes (24 D1 rows, alarm writes counted as rows, alarm runs).
  const perDay =
    ((shardDay.rows + shardDay.d1Rows) * ROW + PUBLISHES_PER_QUIET_DAY * (2 * ROW + REQUEST)) / ORDERS_PER_CLIENT_DAY;
  return {
    perOrder,
    shards,
    ordersPerShard,
    usd: {
      steady,
      perDay,
      total: steady + perDay,
      events: perOrder.eventRows * ROW,
      transitional: perOrder.orderD1Rows * ROW,
    },
    measured: {
      "shard rows/order": `${fixed(perOrder.shardRows)} (its row and its wallet's counters; and once per shard ${shardDay.rows}: its tables and meta, over ${shards} shards of ${fixed(ordersPerShard, 1)} orders)`,
      "event rows/order": `${fixed(perOrder.eventRows)} (the account's events in the shards' \`events\`, apart from the rows above)`,
      "D1 rows/order, the books'": `${fixed(perOrder.booksD1Rows)} (the day registered: ${shardDay.d1Rows} per client, day and wallet, here ${fixed(ordersPerShard, 1)} orders a day each)`,
      "D1 rows/order, the D1 index's": `${fixed(perOrder.orderD1Rows)} (the order object's own D1 writes: none since order_index and its triggers are no longer written)`,
      "order+wallet object rows/order": `${fixed(perOrder.objectRows)} (every key and row the order and wallet objects wrote; the index timer's removal none)`,
      "shard requests/order": `${fixed(perOrder.shardWrites)} (writes; the lag's polls not counted)`,
      "order alarm runs/order": `${fixed(perOrder.orderAlarms)} (the index timer's write is one)`,
      "shard alarm runs/order": `${fixed(perOrder.booksAlarms, 3)} (publishes: a quiet shard's comes within the hour, past this fill)`,
    },
    priced: {
      "USD/1M, per order": `${fixed(steady)} (shard rows ${fixed(perOrder.shardRows * ROW)}, shard requests ${fixed(perOrder.shardWrites * REQUEST)}, order alarm runs ${fixed(perOrder.orderAlarms * REQUEST)}: measured)`,
      "USD/1M, per client's day": `${fixed(perDay)} (its shard's ${shardDay.rows} rows and ${shardDay.d1Rows} D1 rows, ≤ ${PUBLISHES_PER_QUIET_DAY} publishes of a D1 row, an alarm write and an alarm run, over ${ORDERS_PER_CLIENT_DAY} orders: arithmetic)`,
      "USD/1M, the books": `${fixed(steady + perDay)} (index, figures and deliveries; limit 3.00; before: 6.15)`,
      "USD/1M, the events": `${fixed(perOrder.eventRows * ROW)} (their rows in the shards, riding the books' write: no request of their own)`,
      "USD/1M, D1 index meanwhile": `${fixed(perOrder.orderD1Rows * ROW)} (the order object's D1 rows: 0 expected)`,
    },
  };
}

/** The projection to 1,000,000 wallets and 100 million orders a day, from the per-order counts. */
export function projection(costs, shardOrdersPerSecond) {
  const ordersPerDay = 100e6;
  const clientDays = 1e6;
  const perSecond = ordersPerDay / 86_400;
  const { perOrder } = costs;
  const ceiling = 500; // one client at its wallet's ceiling, orders/s
  const parts = 8;
  const requestsPerPart = (ceiling * Math.max(perOrder.shardWrites, 1)) / parts;
  const rowBytes = 600;
  const d1RowsPerDay = clientDays * (REGISTRATION_D1_ROWS + PUBLISHES_PER_QUIET_DAY);
  return {
    "orders/s on average": `${perSecond.toFixed(0)}, each written to its own client's shard: none shared by all clients`,
    "shard rows a day": `${((perOrder.shardRows * ordersPerDay) / 1e6).toFixed(0)} million, over about ${clientDays / 1e6} million shards`,
    "a client at 500 orders/s": `${parts} parts: ≈ ${requestsPerPart.toFixed(0)} requests/s a part (limit 1,000; one shard took ${shardOrdersPerSecond.toFixed(0)}/s here), ≈ ${((ceiling * 86_400 * rowBytes) / parts / 1e9).toFixed(1)} GB a part-day at ${rowBytes} B a row (limit 10 GB)`,
    "D1 rows written a day": `≤ ${(d1RowsPerDay / 1e6).toFixed(0)} million (registrations and hourly publishes), ≈ ${(d1RowsPerDay / 86_400).toFixed(0)}/s: none on an order's path`,
    "USD a day, the books": `${((costs.usd.total * ordersPerDay) / 1e6).toFixed(0)} (${costs.usd.total.toFixed(2)} per million orders)`,
  };
}
