/**
 * Where a client's wallets are: the SQL on the wallets table (the D1 registry of which wallets a client
 * has) and the stub of each wallet's Durable Object, which holds its balance and ledger.
 */
import { toAmountNumber } from "../pricing/money";
import { walletName } from "./ledger";
import type { WalletObject } from "./wallet-object";

/** The Durable Object of the client's wallet in the currency: one per client and currency. */
export function walletStub(env: Pick<Env, "WALLETS">, clientId: string, currency: string): DurableObjectStub<WalletObject> {
  return env.WALLETS.get(env.WALLETS.idFromName(walletName(clientId, currency)));
}

/**
 * A statement whose rows are the client's (none when it does not exist): the clients' store's, handed in
 * by the composition root (src/app.ts), so that wallets tell "no such client" from "no such wallet" in one
 * batch without importing clients (which show a client's wallets).
 */
export type ClientStatement = (db: D1Database, clientId: string) => D1PreparedStatement;

/** The currencies of the client's wallets, in order (rows: {currency}): a statement for the caller's batch. */
export function walletCurrenciesStatement(db: D1Database | D1DatabaseSession, clientId: string): D1PreparedStatement {
  return db.prepare(`SELECT currency FROM wallets WHERE client_id = ?1 ORDER BY currency`).bind(clientId);
}

/** The currencies of the client's wallets, in order. */
export async function walletCurrencies(db: D1Database, clientId: string): Promise<string[]> {
  const { results } = await walletCurrenciesStatement(db, clientId).all<{ currency: string }>();
  return results.map(({ currency }) => currency);
}

/** Whether the client exists, and whether it has a wallet in the currency: one batch. */
export async function findWallet(db: D1Database, clientStatement: ClientStatement, clientId: string, currency: string): Promise<{ client: boolean; wallet: boolean }> {
  const [client, wallet] = await db.batch([
    clientStatement(db, clientId),
    db.prepare(`SELECT currency FROM wallets WHERE client_id = ?1 AND currency = ?2`).bind(clientId, currency),
  ]);
  const exists = client!.results.length > 0;
  return { client: exists, wallet: exists && wallet!.results.length > 0 };
}

/** Registers the client's wallet in the currency unless it is already there. */
export async function openWallet(db: D1Database, clientId: string, currency: string, now: number): Promise<void> {
  await db.prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at) VALUES (?1, ?2, ?3)`).bind(clientId, currency, now).run();
}

/** The client's wallets (the D1 registry) with their balances (each wallet object), by currency. */
export async function walletBalances(env: Pick<Env, "DB" | "WALLETS">, clientId: string): Promise<{ currency: string; balance: number }[]> {
  return Promise.all(
    (await walletCurrencies(env.DB, clientId)).map(async (currency) => ({ currency, balance: toAmountNumber(await walletStub(env, clientId, currency).balance()) })),
  );
}
