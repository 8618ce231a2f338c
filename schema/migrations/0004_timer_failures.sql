-- Orders whose timer (expiry, processing, webhook outbox, settling a cut-off confirm) has failed several
-- times in a row. The order object keeps retrying with capped backoff; this table only makes the order
-- visible to the operator (GET /admin/orders/stuck). The order object writes its row and deletes it when
-- the timer succeeds again.
CREATE TABLE timer_failures (
  order_id TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  timer TEXT NOT NULL,
  failures INTEGER NOT NULL,
  last_error TEXT NOT NULL,
  first_failed_at INTEGER NOT NULL,
  last_failed_at INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL
);
CREATE INDEX timer_failures_by_time ON timer_failures (last_failed_at);
