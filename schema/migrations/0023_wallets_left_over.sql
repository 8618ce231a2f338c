-- The wallets whose ledger a run did not read to its end with every entry settled (entries within the grace,
-- or no ledger pages left): the next run reads them again from their cursors, whatever else names them.
CREATE TABLE reconciliation_wallets_left (
  client_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  since INTEGER NOT NULL,
  PRIMARY KEY (client_id, currency)
) WITHOUT ROWID;
