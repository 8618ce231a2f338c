-- The reconciliation reads the order index by creation, through the time index the searches already use
-- (order_index_created), instead of by change time through an index of its own: each entry of an index is
-- a billed row on every write of an order's row, and this one cost one more per write
-- (docs/benchmarks.md). An order still open when a run reads it stays among the run's deferred orders
-- until it ends, so what it does later is checked too.
--
-- The checkpoint's orders_at and orders_id now hold the last (created_at, id) read. The feed by change time
-- left them at the last change read; an order changed since may have been created long before, so the
-- checkpoint moves back to the creation of the first such order: the next run reads each of them again.
UPDATE reconciliation_checkpoint SET
  orders_at = (SELECT min(created_at) FROM order_index WHERE modified_at > reconciliation_checkpoint.orders_at),
  orders_id = ''
WHERE EXISTS (
  SELECT 1 FROM order_index
  WHERE modified_at > reconciliation_checkpoint.orders_at AND created_at <= reconciliation_checkpoint.orders_at
);
DROP INDEX order_index_changed;
