-- The order index: one row per order, for lists, exports and reconciliation. The order object stays the
-- source of truth and writes its row through its outbox (src/orders/order-index.ts); the row may lag the
-- order by seconds. `version` only grows: an upsert with an older or equal version changes nothing, so a
-- repeated or out-of-order write does no harm.
--
-- Every row and every index entry written is billed (docs/benchmarks.md counts them per order), so the
-- table is keyed by what a client's list walks, (client_id, created_at, id), which needs no index of its
-- own, and holds only the indexes a filter needs:
--   order_index_client_state      a client's orders in a state (and the operator's, with clientId)
--   order_index_client_reference  a client's orders by reference prefix
--   order_index_created           every client's orders, newest first, by creation time
--   order_index_state             every client's orders in a state
-- An order's SKUs go to order_index_skus once (they never change): the operator's sku filter.
CREATE TABLE order_index (
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
  modified_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (client_id, created_at, id)
) WITHOUT ROWID;
CREATE INDEX order_index_client_state ON order_index (client_id, state, created_at, id);
CREATE INDEX order_index_client_reference ON order_index (client_id, reference);
CREATE INDEX order_index_created ON order_index (created_at, id);
CREATE INDEX order_index_state ON order_index (state, created_at, id);

CREATE TABLE order_index_skus (
  sku TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  order_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  PRIMARY KEY (sku, created_at, order_id)
) WITHOUT ROWID;
