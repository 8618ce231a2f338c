-- The reconciliation reads the index by creation, the orders created at least a minute before each run
-- (INDEX_SETTLED_MS, src/reconciliation/reconciliation-rules.ts), and its checkpoint then passes them. An
-- order's first row can come later than that (its index writes failing and retried with a backoff of up to
-- 5 minutes, its timer held up behind slow supplier calls) and land behind the checkpoint, where no run
-- would read it. Such a row puts its order among the deferred orders, which every run reads until the
-- order ends. A row in time writes nothing more: the WHEN clause reads no table. The clock is SQLite's
-- (julianday, which every version has), with 10 s of slack against the Worker's.
CREATE TRIGGER order_index_late_row AFTER INSERT ON order_index
WHEN NEW.version > 0
  AND NEW.created_at <= CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - 50000
BEGIN
  INSERT INTO reconciliation_deferred (order_id, since)
    VALUES (NEW.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT (order_id) DO NOTHING;
END;
