-- The reconciliation reads the order index by creation, through the time index the searches already use
-- (order_index_created), instead of by change time through an index of its own: each entry of an index is
-- a billed row on every write of an order's row, and this one cost one more per write
-- (docs/benchmarks.md). An order still open when a run reads it stays among the run's deferred orders
-- until it ends, so what it does later is checked too.
--
-- The checkpoint's orders_at and orders_id now hold the last (created_at, id) read. The feed by change time
-- left them at the last (modified_at, id) it read, which as a creation cursor passes every order created by
-- then; the checkpoint stays, so none of those is read again by the feed. Of them, the ones changed since
-- (their last change not yet read) and the ones still open (whose changes to come the feed by creation will
-- not see) go among the deferred orders, which every run reads until they end.
INSERT INTO reconciliation_deferred (order_id, since)
  SELECT o.id, c.orders_at FROM reconciliation_checkpoint c JOIN order_index o INDEXED BY order_index_changed
   WHERE c.id = 1 AND (o.modified_at, o.id) > (c.orders_at, c.orders_id) AND o.created_at <= c.orders_at
  ON CONFLICT (order_id) DO NOTHING;
INSERT INTO reconciliation_deferred (order_id, since)
  SELECT o.id, c.orders_at FROM reconciliation_checkpoint c JOIN order_index o INDEXED BY order_index_open
   WHERE c.id = 1 AND o.stage < 2 AND o.created_at <= c.orders_at
  ON CONFLICT (order_id) DO NOTHING;
DROP INDEX order_index_changed;
