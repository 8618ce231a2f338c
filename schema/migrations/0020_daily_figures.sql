-- Daily figures for the console's charts (src/figures/): orders and sales per day and currency, per client,
-- per SKU and supplier, and codes uploaded and sold per SKU and value. SQLite triggers keep them as the
-- rows they count are written, so that a chart reads a few rows per day, whatever the volume of orders,
-- and a client's request pays nothing for them (the order index and the codes are written off its path or
-- in the statements it already makes). docs/benchmarks.md prices what they write.
--
-- Days are UTC days since 1970-01-01 (`created_at / 86400000`, an order's day is the day it was created).
-- Amounts are integers in thousandths of the currency (no currency has more than 3 minor units: ISO 4217,
-- src/pricing/money.ts), converted from the index's exact decimal text without a floating point: the
-- whole part times 1000 plus the first three digits after the point. Sums are exact; the console turns
-- them back into decimals (decimal.js).
--
-- A state is kept as it ends (successful, partial, failed, rejected); created, confirmed and processing
-- count as `open`, so that the steps of a running order write nothing here until it ends.

-- Each order's lines are the index's `lines` (migration 0017): JSON [{"sku","supplier","quantity","amount",
-- "outcome"}], outcome "pending", "delivered" or "failed", amount a decimal in the wallet's currency.

CREATE TABLE daily_orders (
  day INTEGER NOT NULL,
  currency TEXT NOT NULL,
  state TEXT NOT NULL,
  orders INTEGER NOT NULL,
  total INTEGER NOT NULL,
  charged INTEGER NOT NULL,
  refunded INTEGER NOT NULL,
  PRIMARY KEY (day, currency, state)
) WITHOUT ROWID;

CREATE TABLE daily_clients (
  client_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  currency TEXT NOT NULL,
  orders INTEGER NOT NULL,
  charged INTEGER NOT NULL,
  refunded INTEGER NOT NULL,
  PRIMARY KEY (client_id, day, currency)
) WITHOUT ROWID;
-- The home page ranks the wallets that spent most over the last days: a range of days. A row's entry here
-- is written once, when its day first has an order of the client (later writes change amounts only).
CREATE INDEX daily_clients_day ON daily_clients (day);

-- Ended lines only, by the order's day.
CREATE TABLE daily_lines (
  day INTEGER NOT NULL,
  sku TEXT NOT NULL,
  supplier TEXT NOT NULL,
  currency TEXT NOT NULL,
  outcome TEXT NOT NULL,
  lines INTEGER NOT NULL,
  quantity INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY (day, sku, supplier, currency, outcome)
) WITHOUT ROWID;

-- Codes uploaded (by their upload's day) and sold (by their sale's day), per SKU and value.
CREATE TABLE daily_stock (
  sku TEXT NOT NULL,
  day INTEGER NOT NULL,
  value TEXT NOT NULL,
  uploaded INTEGER NOT NULL,
  sold INTEGER NOT NULL,
  PRIMARY KEY (sku, day, value)
) WITHOUT ROWID;

-- ---- the orders' days: a new row counts once; a changed row moves from its old bucket to its new one

CREATE TRIGGER daily_figures_order_added AFTER INSERT ON order_index BEGIN
  INSERT INTO daily_orders (day, currency, state, orders, total, charged, refunded)
  VALUES (NEW.created_at / 86400000, NEW.wallet, (CASE WHEN NEW.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE NEW.state END), 1, (CASE WHEN instr(NEW.total, '.') = 0 THEN CAST(NEW.total AS INTEGER) * 1000 ELSE CAST(substr(NEW.total, 1, instr(NEW.total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.total, instr(NEW.total, '.') + 1) || '000', 1, 3) AS INTEGER) END),
    (CASE WHEN instr(NEW.charged, '.') = 0 THEN CAST(NEW.charged AS INTEGER) * 1000 ELSE CAST(substr(NEW.charged, 1, instr(NEW.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.charged, instr(NEW.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), (CASE WHEN instr(NEW.refunded, '.') = 0 THEN CAST(NEW.refunded AS INTEGER) * 1000 ELSE CAST(substr(NEW.refunded, 1, instr(NEW.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.refunded, instr(NEW.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (day, currency, state) DO UPDATE SET orders = orders + excluded.orders, total = total + excluded.total,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
  INSERT INTO daily_clients (client_id, day, currency, orders, charged, refunded)
  VALUES (NEW.client_id, NEW.created_at / 86400000, NEW.wallet, 1, (CASE WHEN instr(NEW.charged, '.') = 0 THEN CAST(NEW.charged AS INTEGER) * 1000 ELSE CAST(substr(NEW.charged, 1, instr(NEW.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.charged, instr(NEW.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), (CASE WHEN instr(NEW.refunded, '.') = 0 THEN CAST(NEW.refunded AS INTEGER) * 1000 ELSE CAST(substr(NEW.refunded, 1, instr(NEW.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.refunded, instr(NEW.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (client_id, day, currency) DO UPDATE SET orders = orders + excluded.orders,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
  INSERT INTO daily_lines (day, sku, supplier, currency, outcome, lines, quantity, amount)
  SELECT NEW.created_at / 86400000, sku, supplier, NEW.wallet, outcome, COUNT(*), SUM(quantity), SUM((CASE WHEN instr(amount, '.') = 0 THEN CAST(amount AS INTEGER) * 1000 ELSE CAST(substr(amount, 1, instr(amount, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(amount, instr(amount, '.') + 1) || '000', 1, 3) AS INTEGER) END))
    FROM (SELECT json_extract(value, '$.sku') AS sku, json_extract(value, '$.supplier') AS supplier,
                 json_extract(value, '$.outcome') AS outcome, CAST(json_extract(value, '$.quantity') AS INTEGER) AS quantity,
                 CAST(json_extract(value, '$.amount') AS TEXT) AS amount
            FROM json_each(coalesce(NEW.lines, '[]')))
   WHERE outcome IN ('delivered', 'failed')
   GROUP BY sku, supplier, outcome
  ON CONFLICT (day, sku, supplier, currency, outcome) DO UPDATE SET lines = lines + excluded.lines,
    quantity = quantity + excluded.quantity, amount = amount + excluded.amount;
END;

-- Same bucket, other amounts (a confirm's charge, a refund): one row written, by the difference.
CREATE TRIGGER daily_orders_amounts AFTER UPDATE ON order_index
WHEN OLD.created_at / 86400000 = NEW.created_at / 86400000 AND OLD.wallet = NEW.wallet AND (CASE WHEN OLD.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE OLD.state END) = (CASE WHEN NEW.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE NEW.state END) AND (OLD.total IS NOT NEW.total OR OLD.charged IS NOT NEW.charged OR OLD.refunded IS NOT NEW.refunded)
BEGIN
  UPDATE daily_orders SET total = total + (CASE WHEN instr(NEW.total, '.') = 0 THEN CAST(NEW.total AS INTEGER) * 1000 ELSE CAST(substr(NEW.total, 1, instr(NEW.total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.total, instr(NEW.total, '.') + 1) || '000', 1, 3) AS INTEGER) END) - (CASE WHEN instr(OLD.total, '.') = 0 THEN CAST(OLD.total AS INTEGER) * 1000 ELSE CAST(substr(OLD.total, 1, instr(OLD.total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.total, instr(OLD.total, '.') + 1) || '000', 1, 3) AS INTEGER) END),
    charged = charged + (CASE WHEN instr(NEW.charged, '.') = 0 THEN CAST(NEW.charged AS INTEGER) * 1000 ELSE CAST(substr(NEW.charged, 1, instr(NEW.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.charged, instr(NEW.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END) - (CASE WHEN instr(OLD.charged, '.') = 0 THEN CAST(OLD.charged AS INTEGER) * 1000 ELSE CAST(substr(OLD.charged, 1, instr(OLD.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.charged, instr(OLD.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), refunded = refunded + (CASE WHEN instr(NEW.refunded, '.') = 0 THEN CAST(NEW.refunded AS INTEGER) * 1000 ELSE CAST(substr(NEW.refunded, 1, instr(NEW.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.refunded, instr(NEW.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END) - (CASE WHEN instr(OLD.refunded, '.') = 0 THEN CAST(OLD.refunded AS INTEGER) * 1000 ELSE CAST(substr(OLD.refunded, 1, instr(OLD.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.refunded, instr(OLD.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END)
   WHERE day = NEW.created_at / 86400000 AND currency = NEW.wallet AND state = (CASE WHEN NEW.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE NEW.state END);
END;

-- Another bucket (an order that ended): out of the old one, into the new one.
CREATE TRIGGER daily_orders_moved AFTER UPDATE ON order_index
WHEN NOT (OLD.created_at / 86400000 = NEW.created_at / 86400000 AND OLD.wallet = NEW.wallet AND (CASE WHEN OLD.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE OLD.state END) = (CASE WHEN NEW.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE NEW.state END))
BEGIN
  INSERT INTO daily_orders (day, currency, state, orders, total, charged, refunded)
  VALUES (OLD.created_at / 86400000, OLD.wallet, (CASE WHEN OLD.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE OLD.state END), -1, -(CASE WHEN instr(OLD.total, '.') = 0 THEN CAST(OLD.total AS INTEGER) * 1000 ELSE CAST(substr(OLD.total, 1, instr(OLD.total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.total, instr(OLD.total, '.') + 1) || '000', 1, 3) AS INTEGER) END),
    -(CASE WHEN instr(OLD.charged, '.') = 0 THEN CAST(OLD.charged AS INTEGER) * 1000 ELSE CAST(substr(OLD.charged, 1, instr(OLD.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.charged, instr(OLD.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), -(CASE WHEN instr(OLD.refunded, '.') = 0 THEN CAST(OLD.refunded AS INTEGER) * 1000 ELSE CAST(substr(OLD.refunded, 1, instr(OLD.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.refunded, instr(OLD.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (day, currency, state) DO UPDATE SET orders = orders + excluded.orders, total = total + excluded.total,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
  INSERT INTO daily_orders (day, currency, state, orders, total, charged, refunded)
  VALUES (NEW.created_at / 86400000, NEW.wallet, (CASE WHEN NEW.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE NEW.state END), 1, (CASE WHEN instr(NEW.total, '.') = 0 THEN CAST(NEW.total AS INTEGER) * 1000 ELSE CAST(substr(NEW.total, 1, instr(NEW.total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.total, instr(NEW.total, '.') + 1) || '000', 1, 3) AS INTEGER) END),
    (CASE WHEN instr(NEW.charged, '.') = 0 THEN CAST(NEW.charged AS INTEGER) * 1000 ELSE CAST(substr(NEW.charged, 1, instr(NEW.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.charged, instr(NEW.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), (CASE WHEN instr(NEW.refunded, '.') = 0 THEN CAST(NEW.refunded AS INTEGER) * 1000 ELSE CAST(substr(NEW.refunded, 1, instr(NEW.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.refunded, instr(NEW.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (day, currency, state) DO UPDATE SET orders = orders + excluded.orders, total = total + excluded.total,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
END;

-- A client's day counts no state: only what it was charged and refunded moves it, by the difference.
CREATE TRIGGER daily_clients_amounts AFTER UPDATE ON order_index
WHEN OLD.client_id = NEW.client_id AND OLD.created_at / 86400000 = NEW.created_at / 86400000 AND OLD.wallet = NEW.wallet
  AND (OLD.charged IS NOT NEW.charged OR OLD.refunded IS NOT NEW.refunded)
BEGIN
  UPDATE daily_clients SET charged = charged + (CASE WHEN instr(NEW.charged, '.') = 0 THEN CAST(NEW.charged AS INTEGER) * 1000 ELSE CAST(substr(NEW.charged, 1, instr(NEW.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.charged, instr(NEW.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END) - (CASE WHEN instr(OLD.charged, '.') = 0 THEN CAST(OLD.charged AS INTEGER) * 1000 ELSE CAST(substr(OLD.charged, 1, instr(OLD.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.charged, instr(OLD.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END),
    refunded = refunded + (CASE WHEN instr(NEW.refunded, '.') = 0 THEN CAST(NEW.refunded AS INTEGER) * 1000 ELSE CAST(substr(NEW.refunded, 1, instr(NEW.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.refunded, instr(NEW.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END) - (CASE WHEN instr(OLD.refunded, '.') = 0 THEN CAST(OLD.refunded AS INTEGER) * 1000 ELSE CAST(substr(OLD.refunded, 1, instr(OLD.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.refunded, instr(OLD.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END)
   WHERE client_id = NEW.client_id AND day = NEW.created_at / 86400000 AND currency = NEW.wallet;
END;

-- The index never changes an order's client, day or currency; should a write do it, the order moves.
CREATE TRIGGER daily_clients_moved AFTER UPDATE ON order_index
WHEN NOT (OLD.client_id = NEW.client_id AND OLD.created_at / 86400000 = NEW.created_at / 86400000 AND OLD.wallet = NEW.wallet)
BEGIN
  INSERT INTO daily_clients (client_id, day, currency, orders, charged, refunded)
  VALUES (OLD.client_id, OLD.created_at / 86400000, OLD.wallet, -1, -(CASE WHEN instr(OLD.charged, '.') = 0 THEN CAST(OLD.charged AS INTEGER) * 1000 ELSE CAST(substr(OLD.charged, 1, instr(OLD.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.charged, instr(OLD.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), -(CASE WHEN instr(OLD.refunded, '.') = 0 THEN CAST(OLD.refunded AS INTEGER) * 1000 ELSE CAST(substr(OLD.refunded, 1, instr(OLD.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.refunded, instr(OLD.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (client_id, day, currency) DO UPDATE SET orders = orders + excluded.orders,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
  INSERT INTO daily_clients (client_id, day, currency, orders, charged, refunded)
  VALUES (NEW.client_id, NEW.created_at / 86400000, NEW.wallet, 1, (CASE WHEN instr(NEW.charged, '.') = 0 THEN CAST(NEW.charged AS INTEGER) * 1000 ELSE CAST(substr(NEW.charged, 1, instr(NEW.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.charged, instr(NEW.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), (CASE WHEN instr(NEW.refunded, '.') = 0 THEN CAST(NEW.refunded AS INTEGER) * 1000 ELSE CAST(substr(NEW.refunded, 1, instr(NEW.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(NEW.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(NEW.refunded, instr(NEW.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (client_id, day, currency) DO UPDATE SET orders = orders + excluded.orders,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
END;

-- Lines count once they have ended (delivered or failed): a pending line moves nothing, and its end adds
-- one row per SKU, supplier and outcome of the order.
CREATE TRIGGER daily_lines_changed AFTER UPDATE ON order_index
WHEN OLD.lines IS NOT NEW.lines OR OLD.created_at / 86400000 != NEW.created_at / 86400000 OR OLD.wallet IS NOT NEW.wallet
BEGIN
  INSERT INTO daily_lines (day, sku, supplier, currency, outcome, lines, quantity, amount)
  SELECT OLD.created_at / 86400000, sku, supplier, OLD.wallet, outcome, -COUNT(*), -SUM(quantity), -SUM((CASE WHEN instr(amount, '.') = 0 THEN CAST(amount AS INTEGER) * 1000 ELSE CAST(substr(amount, 1, instr(amount, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(amount, instr(amount, '.') + 1) || '000', 1, 3) AS INTEGER) END))
    FROM (SELECT json_extract(value, '$.sku') AS sku, json_extract(value, '$.supplier') AS supplier,
                 json_extract(value, '$.outcome') AS outcome, CAST(json_extract(value, '$.quantity') AS INTEGER) AS quantity,
                 CAST(json_extract(value, '$.amount') AS TEXT) AS amount
            FROM json_each(coalesce(OLD.lines, '[]')))
   WHERE outcome IN ('delivered', 'failed')
   GROUP BY sku, supplier, outcome
  ON CONFLICT (day, sku, supplier, currency, outcome) DO UPDATE SET lines = lines + excluded.lines,
    quantity = quantity + excluded.quantity, amount = amount + excluded.amount;
  INSERT INTO daily_lines (day, sku, supplier, currency, outcome, lines, quantity, amount)
  SELECT NEW.created_at / 86400000, sku, supplier, NEW.wallet, outcome, COUNT(*), SUM(quantity), SUM((CASE WHEN instr(amount, '.') = 0 THEN CAST(amount AS INTEGER) * 1000 ELSE CAST(substr(amount, 1, instr(amount, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(amount, instr(amount, '.') + 1) || '000', 1, 3) AS INTEGER) END))
    FROM (SELECT json_extract(value, '$.sku') AS sku, json_extract(value, '$.supplier') AS supplier,
                 json_extract(value, '$.outcome') AS outcome, CAST(json_extract(value, '$.quantity') AS INTEGER) AS quantity,
                 CAST(json_extract(value, '$.amount') AS TEXT) AS amount
            FROM json_each(coalesce(NEW.lines, '[]')))
   WHERE outcome IN ('delivered', 'failed')
   GROUP BY sku, supplier, outcome
  ON CONFLICT (day, sku, supplier, currency, outcome) DO UPDATE SET lines = lines + excluded.lines,
    quantity = quantity + excluded.quantity, amount = amount + excluded.amount;
END;

CREATE TRIGGER daily_figures_order_removed AFTER DELETE ON order_index BEGIN
  INSERT INTO daily_orders (day, currency, state, orders, total, charged, refunded)
  VALUES (OLD.created_at / 86400000, OLD.wallet, (CASE WHEN OLD.state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE OLD.state END), -1, -(CASE WHEN instr(OLD.total, '.') = 0 THEN CAST(OLD.total AS INTEGER) * 1000 ELSE CAST(substr(OLD.total, 1, instr(OLD.total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.total, instr(OLD.total, '.') + 1) || '000', 1, 3) AS INTEGER) END),
    -(CASE WHEN instr(OLD.charged, '.') = 0 THEN CAST(OLD.charged AS INTEGER) * 1000 ELSE CAST(substr(OLD.charged, 1, instr(OLD.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.charged, instr(OLD.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), -(CASE WHEN instr(OLD.refunded, '.') = 0 THEN CAST(OLD.refunded AS INTEGER) * 1000 ELSE CAST(substr(OLD.refunded, 1, instr(OLD.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.refunded, instr(OLD.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (day, currency, state) DO UPDATE SET orders = orders + excluded.orders, total = total + excluded.total,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
  INSERT INTO daily_clients (client_id, day, currency, orders, charged, refunded)
  VALUES (OLD.client_id, OLD.created_at / 86400000, OLD.wallet, -1, -(CASE WHEN instr(OLD.charged, '.') = 0 THEN CAST(OLD.charged AS INTEGER) * 1000 ELSE CAST(substr(OLD.charged, 1, instr(OLD.charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.charged, instr(OLD.charged, '.') + 1) || '000', 1, 3) AS INTEGER) END), -(CASE WHEN instr(OLD.refunded, '.') = 0 THEN CAST(OLD.refunded AS INTEGER) * 1000 ELSE CAST(substr(OLD.refunded, 1, instr(OLD.refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(OLD.refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(OLD.refunded, instr(OLD.refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  ON CONFLICT (client_id, day, currency) DO UPDATE SET orders = orders + excluded.orders,
    charged = charged + excluded.charged, refunded = refunded + excluded.refunded;
  INSERT INTO daily_lines (day, sku, supplier, currency, outcome, lines, quantity, amount)
  SELECT OLD.created_at / 86400000, sku, supplier, OLD.wallet, outcome, -COUNT(*), -SUM(quantity), -SUM((CASE WHEN instr(amount, '.') = 0 THEN CAST(amount AS INTEGER) * 1000 ELSE CAST(substr(amount, 1, instr(amount, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(amount, instr(amount, '.') + 1) || '000', 1, 3) AS INTEGER) END))
    FROM (SELECT json_extract(value, '$.sku') AS sku, json_extract(value, '$.supplier') AS supplier,
                 json_extract(value, '$.outcome') AS outcome, CAST(json_extract(value, '$.quantity') AS INTEGER) AS quantity,
                 CAST(json_extract(value, '$.amount') AS TEXT) AS amount
            FROM json_each(coalesce(OLD.lines, '[]')))
   WHERE outcome IN ('delivered', 'failed')
   GROUP BY sku, supplier, outcome
  ON CONFLICT (day, sku, supplier, currency, outcome) DO UPDATE SET lines = lines + excluded.lines,
    quantity = quantity + excluded.quantity, amount = amount + excluded.amount;
END;

-- ---- codes: one row written per code uploaded, and per code sold (a code is sold once, never returned)

CREATE TRIGGER daily_stock_uploaded AFTER INSERT ON codes BEGIN
  INSERT INTO daily_stock (sku, day, value, uploaded, sold) VALUES (NEW.sku, NEW.created_at / 86400000, NEW.value, 1, 0)
  ON CONFLICT (sku, day, value) DO UPDATE SET uploaded = uploaded + 1;
  -- A code written sold at once (none is today: a sale updates an uploaded code) counts as sold too.
  INSERT INTO daily_stock (sku, day, value, uploaded, sold)
  SELECT NEW.sku, coalesce(NEW.sold_at, 0) / 86400000, NEW.value, 0, 1 WHERE NEW.status = 'sold'
  ON CONFLICT (sku, day, value) DO UPDATE SET sold = sold + 1;
END;

CREATE TRIGGER daily_stock_sold AFTER UPDATE OF status ON codes
WHEN NEW.status = 'sold' AND OLD.status IS NOT 'sold'
BEGIN
  INSERT INTO daily_stock (sku, day, value, uploaded, sold)
  VALUES (NEW.sku, coalesce(NEW.sold_at, 0) / 86400000, NEW.value, 0, 1)
  ON CONFLICT (sku, day, value) DO UPDATE SET sold = sold + 1;
END;

-- ---- what was there before: the orders already indexed (without lines) and every code

INSERT INTO daily_stock (sku, day, value, uploaded, sold)
SELECT sku, day, value, SUM(uploaded), SUM(sold) FROM (
  SELECT sku, created_at / 86400000 AS day, value, 1 AS uploaded, 0 AS sold FROM codes
  UNION ALL
  SELECT sku, sold_at / 86400000, value, 0, 1 FROM codes WHERE status = 'sold' AND sold_at IS NOT NULL)
GROUP BY sku, day, value;

INSERT INTO daily_orders (day, currency, state, orders, total, charged, refunded)
SELECT created_at / 86400000, wallet, (CASE WHEN state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE state END), COUNT(*), SUM((CASE WHEN instr(total, '.') = 0 THEN CAST(total AS INTEGER) * 1000 ELSE CAST(substr(total, 1, instr(total, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(total, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(total, instr(total, '.') + 1) || '000', 1, 3) AS INTEGER) END)), SUM((CASE WHEN instr(charged, '.') = 0 THEN CAST(charged AS INTEGER) * 1000 ELSE CAST(substr(charged, 1, instr(charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(charged, instr(charged, '.') + 1) || '000', 1, 3) AS INTEGER) END)), SUM((CASE WHEN instr(refunded, '.') = 0 THEN CAST(refunded AS INTEGER) * 1000 ELSE CAST(substr(refunded, 1, instr(refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(refunded, instr(refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  FROM order_index GROUP BY created_at / 86400000, wallet, (CASE WHEN state IN ('created', 'confirmed', 'processing') THEN 'open' ELSE state END);

INSERT INTO daily_clients (client_id, day, currency, orders, charged, refunded)
SELECT client_id, created_at / 86400000, wallet, COUNT(*), SUM((CASE WHEN instr(charged, '.') = 0 THEN CAST(charged AS INTEGER) * 1000 ELSE CAST(substr(charged, 1, instr(charged, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(charged, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(charged, instr(charged, '.') + 1) || '000', 1, 3) AS INTEGER) END)), SUM((CASE WHEN instr(refunded, '.') = 0 THEN CAST(refunded AS INTEGER) * 1000 ELSE CAST(substr(refunded, 1, instr(refunded, '.') - 1) AS INTEGER) * 1000 + (CASE WHEN substr(refunded, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(substr(refunded, instr(refunded, '.') + 1) || '000', 1, 3) AS INTEGER) END))
  FROM order_index GROUP BY client_id, created_at / 86400000, wallet;
