-- Scoped keys (docs/api.md, Keys and scopes; src/kernel/key-access.ts).
--
-- scopes: what the key may do, `all` or the scopes it holds separated by spaces (`orders:read books:read`).
-- NOT NULL with the default `all`: every key issued before this migration keeps every scope, as does a key
-- an older version of the code inserts without naming any; no key is ever left without a value that a
-- reader would have to guess at. A name the code does not know grants nothing.
--
-- allowed_ips: the key's IP allow-list as a JSON array of addresses and CIDR ranges, or NULL for none (any
-- address, as every key before this migration).
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'all';
ALTER TABLE api_keys ADD COLUMN allowed_ips TEXT;
