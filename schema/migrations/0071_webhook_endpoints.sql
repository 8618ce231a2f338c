-- A client's account webhook endpoints (docs/api.md, "Account webhooks"): each receives every event of the
-- client whose type it subscribes to, signed with its own secret (kept as the clients' webhook secrets
-- are, to sign with; shown once). After a rotation the previous secret signs too for 24 hours. At most 10
-- a client, counted in the insert itself. Read by a books shard when it announces new events (cached per
-- isolate for 30 s) and by the queue consumer at each delivery.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  url TEXT NOT NULL,
  event_types TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  rotated_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_by_client ON webhook_endpoints (client_id, created_at);
