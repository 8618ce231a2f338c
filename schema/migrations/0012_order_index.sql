-- The order index: one row per order that has moved money (charged, refunded, or voided after a charge),
-- for the operator's order search, its CSV export and the reconciliation (src/orders/order-index.ts).
-- The order object stays the source of truth and writes nothing here: the indexer
-- (src/orders/order-indexer.ts), run by the scheduled job every 5 minutes and on an operator's request,
-- reads each wallet's new ledger entries (every charge, refund and void credit names its order), reads
-- those orders from their objects, and writes their rows, with the wallet's cursor, in one transaction.
-- A client request therefore makes no D1 call for the index; the index lags the orders by up to 5 minutes.
--
-- Every row and every index entry written is billed (docs/benchmarks.md prices them), so there are few:
-- the table, keyed by (client_id, reference) as the order object itself is named (a client's reference
-- prefix is a key range); one index by creation time, which every other filter walks; and a partial
-- index of the orders still open when they were indexed (an upstream line waiting on its supplier), which
-- the next run reads again until they end. `stage` (1 open, 2 ended) then `modified_at` order the writes:
-- an older one changes nothing.
CREATE TABLE order_index (
  client_id TEXT NOT NULL,
  reference TEXT NOT NULL,
  id TEXT NOT NULL,
  state TEXT NOT NULL,
  wallet TEXT NOT NULL,
  total TEXT NOT NULL,
  charged TEXT NOT NULL,
  refunded TEXT NOT NULL,
  skus TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  stage INTEGER NOT NULL,
  PRIMARY KEY (client_id, reference)
) WITHOUT ROWID;
CREATE INDEX order_index_created ON order_index (created_at, id);
CREATE INDEX order_index_open ON order_index (id) WHERE stage < 2;

-- How far the indexer has read each wallet object's ledger (its name, as the object is named).
CREATE TABLE order_index_cursors (
  wallet TEXT PRIMARY KEY,
  after_seq INTEGER NOT NULL
) WITHOUT ROWID;
