-- Clients and their API keys. Keys are stored only as SHA-256 hex digests.
CREATE TABLE clients (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- Signs webhook bodies (HMAC-SHA256), so it has to be kept as is, not hashed.
  webhook_secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  disabled_at INTEGER
);

CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL REFERENCES clients (id),
  label TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX api_keys_client ON api_keys (client_id);

-- Which wallets a client has; the money itself lives in the wallet Durable Object of (client, currency).
CREATE TABLE wallets (
  client_id TEXT NOT NULL REFERENCES clients (id),
  currency TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (client_id, currency)
);

-- The catalogue. Quotes and bounds are decimal strings; a fixed SKU lists its quotes as a JSON array.
CREATE TABLE products (
  sku TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  product_type TEXT NOT NULL CHECK (product_type IN ('range', 'fixed')),
  currency TEXT NOT NULL,
  country TEXT NOT NULL,
  region TEXT NOT NULL,
  quotes TEXT,
  min_quote TEXT,
  max_quote TEXT,
  supplier TEXT NOT NULL CHECK (supplier IN ('inventory', 'upstream', 'sandbox')),
  supplier_config TEXT NOT NULL DEFAULT '{}',
  active INTEGER NOT NULL DEFAULT 1,
  updated_at INTEGER NOT NULL,
  CHECK ((product_type = 'fixed' AND quotes IS NOT NULL) OR (product_type = 'range' AND min_quote IS NOT NULL AND max_quote IS NOT NULL))
);

-- 1 unit of base_currency (the wallet's) buys `rate` units of target_currency (the product's).
CREATE TABLE exchange_rates (
  base_currency TEXT NOT NULL,
  target_currency TEXT NOT NULL,
  rate TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (base_currency, target_currency)
);

-- A client's fee and discount on one SKU.
CREATE TABLE deals (
  client_id TEXT NOT NULL REFERENCES clients (id),
  sku TEXT NOT NULL REFERENCES products (sku),
  deal_state TEXT NOT NULL DEFAULT 'active' CHECK (deal_state IN ('active', 'none')),
  fee_amount TEXT NOT NULL DEFAULT '0',
  fee_mode TEXT NOT NULL DEFAULT 'fixed' CHECK (fee_mode IN ('percentage', 'fixed')),
  discount_amount TEXT NOT NULL DEFAULT '0',
  discount_mode TEXT NOT NULL DEFAULT 'fixed' CHECK (discount_mode IN ('percentage', 'fixed')),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (client_id, sku)
);

-- Redeem codes of inventory SKUs. A code belongs to at most one order, ever: once sold it never returns.
CREATE TABLE codes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sku TEXT NOT NULL REFERENCES products (sku),
  value TEXT NOT NULL,
  pin TEXT NOT NULL,
  link TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'reserved', 'sold')),
  order_id TEXT,
  reserved_until INTEGER,
  sold_at INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (sku, pin),
  CHECK ((status = 'available') = (order_id IS NULL))
);
CREATE INDEX codes_available ON codes (sku, value, status);
CREATE INDEX codes_order ON codes (order_id);
