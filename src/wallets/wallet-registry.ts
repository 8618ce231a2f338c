/**
 * SQL on the wallets table: the D1 registry of which wallets a client has (the balances and ledgers live in
 * each wallet's Durable Object). Reads clients only to tell "no such client" from "no such wallet".
 */

/** The currencies of the client's wallets, in order. */
export async function walletCurrencies(db: D1Database, clientId: string): Promise<string[]> {
  const { results } = await db.prepare(`SELECT currency FROM wallets WHERE client_id = ?1 ORDER BY currency`).bind(clientId).all<{ currency: string }>();
  return results.map(({ currency }) => currency);
}

/** Whether the client exists, and whether it has a wallet in the currency. */
export async function findWallet(db: D1Database, clientId: string, currency: string): Promise<{ client: boolean; wallet: boolean }> {
  const row = await db
    .prepare(`SELECT c.id AS id, w.currency AS currency FROM clients c LEFT JOIN wallets w ON w.client_id = c.id AND w.currency = ?2 WHERE c.id = ?1`)
    .bind(clientId, currency)
    .first<{ id: string; currency: string | null }>();
  return { client: row !== null, wallet: row !== null && row.currency !== null };
}

/** Registers the client's wallet in the currency unless it is already there. */
export async function openWallet(db: D1Database, clientId: string, currency: string, now: number): Promise<void> {
  await db.prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at) VALUES (?1, ?2, ?3)`).bind(clientId, currency, now).run();
}
