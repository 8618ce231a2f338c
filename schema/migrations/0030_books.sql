-- The client's books (docs/books.md): each client's orders live in Durable Objects of their own, one per
-- client and UTC day (and part of a busy day), which D1 does not hold. D1 keeps what does not grow with
-- orders: these three tables, written by the books (src/books/) off every client's path.

-- One row per client, day, wallet (currency) and part with orders: the figures of that day, as the shard
-- last published them (amounts in thousandths, as the daily figures of migration 0020). Written once when
-- the shard's day starts for the wallet (all zero), then replaced by each publish, which passes only with
-- a greater `changes` (a late or repeated publish writes nothing). It is also the directory of a client's
-- books: the days it has orders on are a range of the key, so a list opens no empty day's object.
--   lines: JSON {"<sku>\u0000<supplier>\u0000<outcome>": {"lines", "quantity", "amount"}}, ended lines only
CREATE TABLE books_days (
  client_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  currency TEXT NOT NULL,
  part INTEGER NOT NULL,
  orders INTEGER NOT NULL,
  open INTEGER NOT NULL,
  successful INTEGER NOT NULL,
  partial INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  rejected INTEGER NOT NULL,
  total INTEGER NOT NULL,
  charged INTEGER NOT NULL,
  refunded INTEGER NOT NULL,
  lines TEXT NOT NULL,
  changes INTEGER NOT NULL,
  published_at INTEGER NOT NULL,
  PRIMARY KEY (client_id, day, currency, part)
) WITHOUT ROWID;
-- The cross-client figures read a range of days; an entry is written once, when the row is.
CREATE INDEX books_days_by_day ON books_days (day);

-- A client's parts: from `from_day` on, each of its days is split into `parts` parts (a power of two).
-- A day's parts are those of the row with the greatest from_day not after it; 1 without one. Set at least
-- an hour before the day starts, so that every day has one layout for its whole life.
CREATE TABLE books_layouts (
  client_id TEXT NOT NULL,
  from_day INTEGER NOT NULL,
  parts INTEGER NOT NULL CHECK (parts >= 1 AND parts <= 64),
  set_at INTEGER NOT NULL,
  set_by TEXT NOT NULL,
  PRIMARY KEY (client_id, from_day)
) WITHOUT ROWID;

-- Orders that need a person, from the books: an order that ended failed or partial, written by the shard
-- on the write that ends it so (stuck orders are in timer_failures, mismatches in the reconciliation's
-- findings). `lines`: JSON [{"sku", "supplier", "quantity", "amount"}] of the failed lines.
CREATE TABLE books_exceptions (
  client_id TEXT NOT NULL,
  order_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL,
  wallet TEXT NOT NULL,
  reference TEXT NOT NULL,
  lines TEXT NOT NULL,
  found_at INTEGER NOT NULL,
  PRIMARY KEY (client_id, order_id)
) WITHOUT ROWID;
CREATE INDEX books_exceptions_found ON books_exceptions (found_at);
