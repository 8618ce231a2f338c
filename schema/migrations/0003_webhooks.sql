-- Webhook messages that could not be delivered after the last attempt (docs/webhooks.md), kept so an operator can
-- list and replay them. `message` is the queue message as JSON ({clientId, url, event}); `attempts` is
-- NULL when the Queue dead-lettered the message on its own (its max_retries ran out before ours).
CREATE TABLE dead_letters (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  url TEXT NOT NULL,
  message TEXT NOT NULL,
  attempts INTEGER,
  last_error TEXT NOT NULL DEFAULT '',
  failed_at INTEGER NOT NULL,
  replayed_at INTEGER
);
-- At most one unreplayed row per event: a message the queue hands over twice is kept once.
CREATE UNIQUE INDEX dead_letters_pending_event ON dead_letters (event_id) WHERE replayed_at IS NULL;
CREATE INDEX dead_letters_client ON dead_letters (client_id, id);
