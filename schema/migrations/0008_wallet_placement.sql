-- Wallets near their client (docs/guarantees.md, "Where a wallet lives"). A Durable Object stays where it
-- was first created, and the service names the hint it is created with (`locationHint`):
--
-- clients.region: where the client's new wallet objects are created (one of the Durable Object location
-- hints wnam, enam, sam, weur, eeur, apac, oc, afr, me), or NULL for no hint: the object is then created
-- near whoever first uses it, as before this column.
-- wallets.region: the hint the wallet's object was opened with, copied from the client when the wallet is
-- registered and never changed afterwards, so every caller opens the object with the hint it was placed
-- by. Wallets registered before this migration have none, and the objects they name already exist.
ALTER TABLE clients ADD COLUMN region TEXT;
ALTER TABLE wallets ADD COLUMN region TEXT;
