// The books' part of `npm run bench:index`: per-order counts from two cost snapshots, their price, and the
// projection (bench/lib/books.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";
import { booksCosts, projection } from "./books.mjs";

const snapshot = (over = {}) => ({
  kv: { keysWritten: 0, byClass: {} },
  sqlite: { rowsWritten: 0, byClass: {} },
  d1: { byOwner: {} },
  doCalls: {},
  doAlarms: {},
  ...over,
});

test("counts a fill's rows per order, the shards' creation apart, and prices the books", () => {
  // 1,000 orders over 10 shards: 2 rows an order, and 2 SQL rows and a key per shard created.
  const after = snapshot({
    kv: { keysWritten: 10 + 3000, byClass: { BooksObject: 10, OrderObject: 3000 } },
    sqlite: { rowsWritten: 2020 + 5000, byClass: { BooksObject: { rowsWritten: 2020 } } },
    d1: { byOwner: { BooksObject: { rowsWritten: 20 }, OrderObject: { rowsWritten: 5000 } } },
    doCalls: { "BOOKS.write": 1000, "BOOKS.page": 500 },
    doAlarms: { OrderObject: 1000 },
  });
  const costs = booksCosts(snapshot(), after, 1000);
  assert.equal(costs.shards, 10);
  assert.equal(costs.perOrder.shardRows, 2);
  assert.equal(costs.perOrder.booksD1Rows, 0.02);
  assert.equal(costs.perOrder.orderD1Rows, 5);
  assert.equal(costs.perOrder.objectRows, 8);
  assert.equal(costs.perOrder.shardWrites, 1);
  // 2 rows + 1 request + 1 alarm run; a day of 100 orders: (3 + 2 + 24 × 2) rows and 24 runs over 100.
  assert.equal(costs.usd.steady.toFixed(2), "2.30");
  assert.equal(costs.usd.perDay.toFixed(4), "0.5660");
  assert.ok(costs.usd.total < 3);
  assert.equal(costs.usd.transitional, 5);
});

test("prices the account's events apart from the books' index, figures and deliveries", () => {
  // 1,000 orders over 10 shards: 2 rows an order for the books and 2 events an order.
  const after = snapshot({
    kv: { keysWritten: 10, byClass: { BooksObject: 10 } },
    sqlite: {
      rowsWritten: 4020,
      byClass: { BooksObject: { rowsWritten: 4020, byTable: { orders: 1000, events: 2000 } } },
    },
    doCalls: { "BOOKS.write": 1000 },
    doAlarms: { OrderObject: 1000 },
  });
  const costs = booksCosts(snapshot(), after, 1000);
  assert.equal(costs.perOrder.shardRows, 2);
  assert.equal(costs.perOrder.eventRows, 2);
  assert.equal(costs.usd.steady.toFixed(2), "2.30");
  assert.equal(costs.usd.events.toFixed(2), "2.00");
  assert.match(costs.priced["USD/1M, the books"], /^2\.87 \(index, figures and deliveries; limit 3\.00/);
  assert.match(costs.priced["USD/1M, the events"], /^2\.00 /);
});

test("projects to 100 million orders a day: shards spread, a busy client's parts under their limits", () => {
  const costs = booksCosts(
    snapshot(),
    snapshot({
      sqlite: { rowsWritten: 2000, byClass: { BooksObject: { rowsWritten: 2000 } } },
      doCalls: { "BOOKS.write": 1000 },
      doAlarms: { OrderObject: 1000 },
    }),
    1000,
  );
  const lines = projection(costs, 900);
  assert.match(lines["shard rows a day"], /^200 million/);
  assert.match(lines["a client at 500 orders/s"], /≈ 63 requests\/s a part/);
  assert.match(lines["orders/s on average"], /^1157/);
});
