-- Demo data (README.md) for local use only (`npm start` and tests); never applied to a deployed database.
-- Idempotent: INSERT OR IGNORE keeps what a running service changed (sold codes, rates set by an operator).
-- Wallet balances are ledger entries in the wallet Durable Objects; `npm start` tops them up with fixed
-- idempotency keys, so a restart adds nothing.
-- The demo webhook secret: a Standard Webhooks secret (whsec_ + base64 of 32 bytes, here the SHA-256 of
-- "order-service demo webhook secret"), printed by `npm start`. The UPDATE moves a local database seeded
-- before it (with 'whsec_demo') to it.
INSERT OR IGNORE INTO clients (id, name, webhook_secret, created_at) VALUES ('demo', 'Demo reseller', 'whsec_i1PA/S2sBB1e9oLQoP6Bta4Z8ai0fdVNnZroQ+TCNB0=', 1767225600000);
UPDATE clients SET webhook_secret = 'whsec_i1PA/S2sBB1e9oLQoP6Bta4Z8ai0fdVNnZroQ+TCNB0=' WHERE id = 'demo' AND webhook_secret = 'whsec_demo';
-- SHA-256 of sk_test_demo
INSERT OR IGNORE INTO api_keys (key_hash, client_id, label, created_at) VALUES ('5d48f1024f38b44ad9ddc03dc12b2a8287c7ec690065dcef384cb1fd1753626d', 'demo', 'demo key', 1767225600000);
INSERT OR IGNORE INTO wallets (client_id, currency, created_at) VALUES ('demo', 'USD', 1767225600000), ('demo', 'EUR', 1767225600000);
INSERT OR IGNORE INTO exchange_rates (base_currency, target_currency, rate, updated_at) VALUES
  ('USD', 'EUR', '0.92', 1767225600000),
  ('USD', 'GBP', '0.79', 1767225600000),
  ('USD', 'JPY', '150', 1767225600000),
  ('EUR', 'USD', '1.08', 1767225600000);
INSERT OR IGNORE INTO products (sku, name, product_type, currency, country, region, quotes, min_quote, max_quote, supplier, supplier_config, updated_at) VALUES
  ('DEMO-US-RANGE', 'Demo US gift card', 'range', 'USD', 'US', 'North America', NULL, '5', '500', 'sandbox', '{}', 1767225600000),
  ('DEMO-EU-FIXED', 'Demo EU voucher', 'fixed', 'EUR', 'DE', 'Europe', '["10","25","50"]', NULL, NULL, 'inventory', '{}', 1767225600000),
  ('DEMO-GB-FIXED', 'Demo UK voucher', 'fixed', 'GBP', 'GB', 'Europe', '["20"]', NULL, NULL, 'inventory', '{}', 1767225600000),
  ('DEMO-JP-RANGE', 'Demo Japan top-up', 'range', 'JPY', 'JP', 'Asia', NULL, '1000', '50000', 'sandbox', '{}', 1767225600000),
  ('DEMO-US-SOLDOUT', 'Demo US sold-out card', 'fixed', 'USD', 'US', 'North America', '["10"]', NULL, NULL, 'inventory', '{}', 1767225600000),
  ('DEMO-US-FAILING', 'Demo US failing card', 'range', 'USD', 'US', 'North America', NULL, '1', '100', 'sandbox', '{"fail":true}', 1767225600000);
INSERT OR IGNORE INTO codes (sku, value, pin, link, created_at) VALUES
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0001', 'https://redeem.example.com/eu/DEMO-EU-10-0001', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0002', 'https://redeem.example.com/eu/DEMO-EU-10-0002', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0003', 'https://redeem.example.com/eu/DEMO-EU-10-0003', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0004', 'https://redeem.example.com/eu/DEMO-EU-10-0004', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0005', 'https://redeem.example.com/eu/DEMO-EU-10-0005', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0006', 'https://redeem.example.com/eu/DEMO-EU-10-0006', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0007', 'https://redeem.example.com/eu/DEMO-EU-10-0007', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0008', 'https://redeem.example.com/eu/DEMO-EU-10-0008', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0009', 'https://redeem.example.com/eu/DEMO-EU-10-0009', 1767225600000),
  ('DEMO-EU-FIXED', '10', 'DEMO-EU-10-0010', 'https://redeem.example.com/eu/DEMO-EU-10-0010', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0001', 'https://redeem.example.com/eu/DEMO-EU-25-0001', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0002', 'https://redeem.example.com/eu/DEMO-EU-25-0002', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0003', 'https://redeem.example.com/eu/DEMO-EU-25-0003', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0004', 'https://redeem.example.com/eu/DEMO-EU-25-0004', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0005', 'https://redeem.example.com/eu/DEMO-EU-25-0005', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0006', 'https://redeem.example.com/eu/DEMO-EU-25-0006', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0007', 'https://redeem.example.com/eu/DEMO-EU-25-0007', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0008', 'https://redeem.example.com/eu/DEMO-EU-25-0008', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0009', 'https://redeem.example.com/eu/DEMO-EU-25-0009', 1767225600000),
  ('DEMO-EU-FIXED', '25', 'DEMO-EU-25-0010', 'https://redeem.example.com/eu/DEMO-EU-25-0010', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0001', 'https://redeem.example.com/eu/DEMO-EU-50-0001', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0002', 'https://redeem.example.com/eu/DEMO-EU-50-0002', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0003', 'https://redeem.example.com/eu/DEMO-EU-50-0003', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0004', 'https://redeem.example.com/eu/DEMO-EU-50-0004', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0005', 'https://redeem.example.com/eu/DEMO-EU-50-0005', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0006', 'https://redeem.example.com/eu/DEMO-EU-50-0006', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0007', 'https://redeem.example.com/eu/DEMO-EU-50-0007', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0008', 'https://redeem.example.com/eu/DEMO-EU-50-0008', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0009', 'https://redeem.example.com/eu/DEMO-EU-50-0009', 1767225600000),
  ('DEMO-EU-FIXED', '50', 'DEMO-EU-50-0010', 'https://redeem.example.com/eu/DEMO-EU-50-0010', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0001', 'https://redeem.example.com/gb/DEMO-GB-20-0001', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0002', 'https://redeem.example.com/gb/DEMO-GB-20-0002', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0003', 'https://redeem.example.com/gb/DEMO-GB-20-0003', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0004', 'https://redeem.example.com/gb/DEMO-GB-20-0004', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0005', 'https://redeem.example.com/gb/DEMO-GB-20-0005', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0006', 'https://redeem.example.com/gb/DEMO-GB-20-0006', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0007', 'https://redeem.example.com/gb/DEMO-GB-20-0007', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0008', 'https://redeem.example.com/gb/DEMO-GB-20-0008', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0009', 'https://redeem.example.com/gb/DEMO-GB-20-0009', 1767225600000),
  ('DEMO-GB-FIXED', '20', 'DEMO-GB-20-0010', 'https://redeem.example.com/gb/DEMO-GB-20-0010', 1767225600000);
