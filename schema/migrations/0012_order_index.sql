-- The order index: one row per order once it is processing or has ended, for the operator's order search,
-- its CSV export and the reconciliation (src/orders/order-index.ts). The order object stays the source of
-- truth: it writes its row just before it stores the state the row shows, and when that write fails it
-- stores an `index` timer with the state, which retries it. So the row may be ahead of the order for the
-- moment between the two writes, and behind it by the timer's backoff when D1 is failing; docs/operator-api.md
-- says so where the index is read.
--
-- Every row and every index entry written is billed (docs/benchmarks.md prices them), so there are two:
-- the table, keyed by (client_id, reference) as the order object itself is named (a client's reference
-- prefix is a key range), and one index by creation time, which every other filter walks. An order
-- writes its row once when it ends (2 rows written); one that waits on an outside supplier writes it
-- when it starts processing as well (2, then 1 when it ends: the time index does not change).
-- `stage` (1 processing, 2 ended) then `modified_at` order the writes: an older one changes nothing.
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
