-- Moving a client's wallets to another region (docs/guarantees.md, "Where a wallet lives"). A Durable
-- Object stays where it was first created, so a wallet moves by becoming another object: generation 0
-- keeps its name `client:currency`, generation n > 0 is `client:currency:n:<region>` (wallet-registry.ts).
--
-- wallets.generation: which object is the wallet now; wallets.region stays that object's hint.
-- wallets.moving_to: the region of a move under way (set before any wallet object is touched, cleared in
-- the same statement that points the row at the new object), so that a move cut off anywhere is found and
-- resumed by the next request; NULL when none is.
-- wallets.previous: the objects the wallet has been before, oldest first, as a JSON array of
-- {"generation", "region"}: the old ledgers stay readable, and the ledger views show them.
ALTER TABLE wallets ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE wallets ADD COLUMN moving_to TEXT;
ALTER TABLE wallets ADD COLUMN previous TEXT NOT NULL DEFAULT '[]';
