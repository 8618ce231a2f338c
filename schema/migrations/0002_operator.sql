-- Operator API (docs/operator-api.md): every change an operator makes through /admin/* is written here, in the same D1
-- batch as the change where the change is in D1. Append-only: rows are never updated or deleted.
-- `actor` names the admin token ("admin:" and the first 8 hex digits of its SHA-256, never the token);
-- `details` is the validated request as JSON, without secrets (API keys and webhook secrets never appear).
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  request_id TEXT NOT NULL,
  details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_target ON audit_log (target, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

