-- The receiver's last answer to each webhook event, for the operator's order timeline (the console's order
-- page). One row per event, replaced by each answer given later (a replayed dead letter's included): 1 D1 row written per delivery attempt (an
-- event delivered at its first attempt writes 1). Written by the queue consumer after it has acked or
-- retried the batch's messages, so that a failure here never changes a delivery (it is logged).
--   outcome: delivered (a 2xx), retrying (a failed attempt the queue tries again), dead_lettered (given up)
--   status:  the HTTP status of the answer; null for a timeout, a network error or a refusal before sending
CREATE TABLE webhook_deliveries (
  event_id TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retrying', 'dead_lettered')),
  status INTEGER,
  error TEXT,
  answered_at INTEGER NOT NULL
) WITHOUT ROWID;
