-- Thresholds of the operator's Needs attention list (GET /admin/attention, the console's home page). Kept
-- beside the rows they watch, not in them: PUT /admin/products/:sku replaces the whole SKU, and a
-- threshold is an operator's alert, not part of what the SKU or the wallet is.
--
-- stock_thresholds: an inventory SKU is below its threshold while fewer than `threshold` of its codes are
-- available (unsold and unreserved), all values together.
CREATE TABLE stock_thresholds (
  sku TEXT PRIMARY KEY REFERENCES products (sku),
  threshold INTEGER NOT NULL CHECK (threshold >= 1),
  updated_at INTEGER NOT NULL
);

-- wallet_thresholds: a wallet is below its threshold while its balance is less than `threshold`, a decimal
-- string in the wallet's currency (exact, as the ledger's amounts).
CREATE TABLE wallet_thresholds (
  client_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  threshold TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (client_id, currency),
  FOREIGN KEY (client_id, currency) REFERENCES wallets (client_id, currency)
);
