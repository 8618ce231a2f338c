-- The order index, written by the order itself (src/order-index/order-index-store.ts): one row per order in
-- any state, `created` and expired ones included, written from the order's own record by its `index` timer
-- a few seconds after each change (never inside a client's request), instead of by a pass over the
-- wallets' ledgers every 5 minutes. The wallets' ledgers stay an independent source for the reconciliation.
--
-- The table is keyed by (client_id, created_at, id): a client's orders newest first are a range of the key
-- (the client filter of the operator's search, and the client's own list), and the key is known to the
-- order from its create on, so its write is a plain upsert. The time index serves the searches without a
-- client; the partial index holds the orders written while still open, which the operator's repair pass
-- reads again. Each index entry is a billed row, so there are no others (docs/benchmarks.md).
--
-- `version` counts the order's changes the index shows: a write passes only with a newer (version,
-- modified_at), so a late or repeated write changes nothing. Rows of the ledger indexer keep version 0
-- and their columns; `lines` is '[]' on them until the order writes its row again.
-- `lines`: JSON [{"sku","supplier","quantity","amount" (wallet currency, decimal string),
-- "outcome": "pending" | "delivered" | "failed"}], one element per line of the order.
CREATE TABLE order_index_by_client (
  client_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  id TEXT NOT NULL,
  reference TEXT NOT NULL,
  state TEXT NOT NULL,
  wallet TEXT NOT NULL,
  total TEXT NOT NULL,
  charged TEXT NOT NULL,
  refunded TEXT NOT NULL,
  skus TEXT NOT NULL,
  lines TEXT NOT NULL,
  modified_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  stage INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (client_id, created_at, id)
) WITHOUT ROWID;
INSERT INTO order_index_by_client
  (client_id, created_at, id, reference, state, wallet, total, charged, refunded, skus, lines, modified_at,
   expires_at, stage, version)
  SELECT client_id, created_at, id, reference, state, wallet, total, charged, refunded, skus, '[]', modified_at,
    expires_at, stage, 0
  FROM order_index;
DROP TABLE order_index;
ALTER TABLE order_index_by_client RENAME TO order_index;
CREATE INDEX order_index_created ON order_index (created_at, id);
CREATE INDEX order_index_open ON order_index (id) WHERE stage < 2;

-- The ledger indexer's cursors go with it. The repair pass keeps where a run that reached its bound stopped
-- (one row, absent when the last run finished), so that the next run resumes there.
DROP TABLE order_index_cursors;
CREATE TABLE order_index_repair (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  after_id TEXT NOT NULL
);
