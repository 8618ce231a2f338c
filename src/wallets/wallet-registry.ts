/**
 * Where a client's wallets are: the SQL on the wallets table (the D1 registry of which wallets a client
 * has) and the stub of each wallet's Durable Object, which holds its balance and ledger.
 */
import { toAmountNumber } from "../pricing/money";
import { walletName } from "./ledger";
import type { WalletObject } from "./wallet-object";

/**
 * Where a client's wallet objects are created: the Durable Object location hints. A Durable Object stays
 * where it was first created, so the hint counts only on the first call to a wallet object; the service
 * passes it on every call so that whichever call comes first places the object.
 */
export const REGIONS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const satisfies readonly DurableObjectLocationHint[];
export type Region = (typeof REGIONS)[number];

/** A stored region (clients.region, wallets.region), or null for none and for anything not a hint. */
export function regionOf(stored: string | null | undefined): Region | null {
  return (REGIONS as readonly string[]).includes(stored ?? "") ? (stored as Region) : null;
}

/**
 * The Durable Object of the client's wallet in the currency: one per client and currency, opened with the
 * region the wallet was registered with (wallets.region; null: no hint). This is the one place that opens
 * wallet objects.
 */
export function walletStub(env: Pick<Env, "WALLETS">, clientId: string, currency: string, region: Region | null): DurableObjectStub<WalletObject> {
  const id = env.WALLETS.idFromName(walletName(clientId, currency));
  return region === null ? env.WALLETS.get(id) : env.WALLETS.get(id, { locationHint: region });
}

/**
 * A statement whose rows are the client's (none when it does not exist): the clients' store's, handed in
 * by the composition root (src/app.ts), so that wallets tell "no such client" from "no such wallet" in one
 * batch without importing clients (which show a client's wallets).
 */
export type ClientStatement = (db: D1Database, clientId: string) => D1PreparedStatement;

/** A row of the registry: a wallet of the client, and the region its object was opened with. */
export interface RegisteredWallet {
  currency: string;
  region: Region | null;
}

/** The client's wallets, by currency (rows: {currency, region}): a statement for the caller's batch. */
export function walletCurrenciesStatement(db: D1Database | D1DatabaseSession, clientId: string): D1PreparedStatement {
  return db.prepare(`SELECT currency, region FROM wallets WHERE client_id = ?1 ORDER BY currency`).bind(clientId);
}

/** The registry rows of walletCurrenciesStatement, their regions read as hints. */
export function registeredWallets(rows: readonly unknown[]): RegisteredWallet[] {
  return (rows as { currency: string; region: string | null }[]).map((row) => ({ currency: row.currency, region: regionOf(row.region) }));
}

/**
 * The registry rows ({client_id, currency, region}) of the wallets that `pairs` selects (a SELECT of
 * client_id, currency): a statement for the caller's batch.
 */
export function registeredWalletsStatement(db: D1Database, pairs: string, binds: unknown[] = []): D1PreparedStatement {
  return db.prepare(`SELECT client_id, currency, region FROM wallets WHERE (client_id, currency) IN (${pairs}) ORDER BY client_id, currency`).bind(...binds);
}

/** The client's wallets, by currency. */
export async function walletCurrencies(db: D1Database, clientId: string): Promise<RegisteredWallet[]> {
  return registeredWallets((await walletCurrenciesStatement(db, clientId).all()).results);
}

/**
 * Whether the client exists, whether it has a wallet in the currency, and the region its wallet objects
 * are opened with: the wallet's own when it is registered (where its object is), else the client's (where
 * a new one goes). One batch.
 */
export async function findWallet(
  db: D1Database,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
): Promise<{ client: boolean; wallet: boolean; region: Region | null }> {
  const [client, wallet] = await db.batch([
    clientStatement(db, clientId),
    db.prepare(`SELECT currency, region FROM wallets WHERE client_id = ?1 AND currency = ?2`).bind(clientId, currency),
  ]);
  const clientRow = client!.results[0] as { region?: string | null } | undefined;
  const walletRow = wallet!.results[0] as { region: string | null } | undefined;
  if (clientRow === undefined) return { client: false, wallet: false, region: null };
  if (walletRow === undefined) return { client: true, wallet: false, region: regionOf(clientRow.region) };
  return { client: true, wallet: true, region: regionOf(walletRow.region) };
}

/**
 * Registers the client's wallet in the currency, placed in `region`, unless it is already there; answers
 * the region of the registered wallet (an earlier registration's wins, since its object may exist).
 */
export async function openWallet(db: D1Database, clientId: string, currency: string, region: Region | null, now: number): Promise<Region | null> {
  const [, row] = await db.batch([
    db.prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at, region) VALUES (?1, ?2, ?3, ?4)`).bind(clientId, currency, now, region),
    db.prepare(`SELECT region FROM wallets WHERE client_id = ?1 AND currency = ?2`).bind(clientId, currency),
  ]);
  return regionOf((row!.results[0] as { region: string | null } | undefined)?.region);
}

/**
 * openWallet for a caller that knows the client but not its region (the sandbox's own top-up): a new
 * wallet takes the client's region, in the same statement. Answers the region the wallet is opened with.
 */
export async function openClientWallet(db: D1Database, clientId: string, currency: string, now: number): Promise<Region | null> {
  const [, row] = await db.batch([
    db
      .prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at, region) SELECT ?1, ?2, ?3, region FROM clients WHERE id = ?1`)
      .bind(clientId, currency, now),
    db.prepare(`SELECT region FROM wallets WHERE client_id = ?1 AND currency = ?2`).bind(clientId, currency),
  ]);
  return regionOf((row!.results[0] as { region: string | null } | undefined)?.region);
}

/** The client's wallets (the D1 registry) with their balances (each wallet object), by currency. */
export async function walletBalances(env: Pick<Env, "DB" | "WALLETS">, clientId: string): Promise<{ currency: string; balance: number }[]> {
  return Promise.all(
    (await walletCurrencies(env.DB, clientId)).map(async ({ currency, region }) => ({
      currency,
      balance: toAmountNumber(await walletStub(env, clientId, currency, region).balance()),
    })),
  );
}
