/**
 * Where a client's wallets are: the SQL on the wallets table (the D1 registry of which wallets a client
 * has) and the stub of each wallet's Durable Object, which holds its balance and ledger.
 */
import { walletName } from "./ledger";
import type { Placement, WalletObject } from "./wallet-object";

/**
 * Where a client's wallet objects are created: the Durable Object location hints. A Durable Object stays
 * where it was first created, so the hint counts only on the first call to a wallet object; the service
 * passes it on every call so that whichever call comes first places the object.
 */
export const REGIONS = [
  "wnam",
  "enam",
  "sam",
  "weur",
  "eeur",
  "apac",
  "oc",
  "afr",
  "me",
] as const satisfies readonly DurableObjectLocationHint[];
export type Region = (typeof REGIONS)[number];

/** A stored region (clients.region, wallets.region), or null for none and for anything not a hint. */
export function regionOf(stored: string | null | undefined): Region | null {
  return (REGIONS as readonly string[]).includes(stored ?? "") ? (stored as Region) : null;
}

/**
 * The Durable Object of the client's wallet in the currency, opened with the region the wallet was
 * registered with (wallets.region; null: no hint). One per client and currency at a time: a wallet that
 * moved to another region is another object, its `generation` (0: the wallet's first object, named as
 * before moves existed). This is the one place that opens wallet objects.
 */
export function walletStub(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  currency: string,
  region: Region | null,
  generation = 0,
): DurableObjectStub<WalletObject> {
  const id = env.WALLETS.idFromName(walletName(clientId, currency, generation, region));
  return region === null ? env.WALLETS.get(id) : env.WALLETS.get(id, { locationHint: region });
}

/** walletStub for a placement as a wallet object states it (its region read as a hint). */
export function placedWallet(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  currency: string,
  placement: Placement,
): DurableObjectStub<WalletObject> {
  return walletStub(env, clientId, currency, regionOf(placement.region), placement.generation);
}

/**
 * A statement whose rows are the client's (none when it does not exist): the clients' store's, handed in
 * by the composition root (src/app.ts), so that wallets tell "no such client" from "no such wallet" in one
 * batch without importing clients (which show a client's wallets).
 */
export type ClientStatement = (db: D1Database, clientId: string) => D1PreparedStatement;

/**
 * A row of the registry: a wallet of the client, where its object is now (its region and generation),
 * the objects it has been before (oldest first), and the region of a move under way (null: none).
 */
export interface RegisteredWallet {
  currency: string;
  region: Region | null;
  generation: number;
  previous: Placement[];
  movingTo: Region | null;
}

const WALLET_COLUMNS = `currency, region, generation, previous, moving_to`;

interface WalletRow {
  currency: string;
  region: string | null;
  generation: number | null;
  previous: string | null;
  moving_to: string | null;
}

function registeredWallet(row: WalletRow): RegisteredWallet {
  return {
    currency: row.currency,
    region: regionOf(row.region),
    generation: row.generation ?? 0,
    previous: JSON.parse(row.previous ?? "[]") as Placement[],
    movingTo: regionOf(row.moving_to),
  };
}

/** Where the wallet's object is now. */
export function placementOf(wallet: Pick<RegisteredWallet, "region" | "generation">): Placement {
  return { generation: wallet.generation, region: wallet.region };
}

/**
 * Every object the wallet has been, oldest first: the earlier ones, the current one, and the one a move
 * under way is taking it to (its ledger may already hold the transfer).
 */
export function historyOf(wallet: RegisteredWallet): Placement[] {
  const next = wallet.movingTo === null ? [] : [{ generation: wallet.generation + 1, region: wallet.movingTo }];
  return [...wallet.previous, placementOf(wallet), ...next];
}

/** The client's wallets, by currency (rows: see registeredWallets): a statement for the caller's batch. */
export function walletCurrenciesStatement(db: D1Database | D1DatabaseSession, clientId: string): D1PreparedStatement {
  return db.prepare(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE client_id = ?1 ORDER BY currency`).bind(clientId);
}

/** The registry rows of walletCurrenciesStatement, their regions read as hints. */
export function registeredWallets(rows: readonly unknown[]): RegisteredWallet[] {
  return (rows as WalletRow[]).map(registeredWallet);
}

/**
 * The registry rows (client_id and the columns registeredWallets reads) of the wallets that `pairs`
 * selects (a SELECT of client_id, currency): a statement for the caller's batch.
 */
export function registeredWalletsStatement(db: D1Database, pairs: string, binds: unknown[] = []): D1PreparedStatement {
  return db
    .prepare(
      `SELECT client_id, ${WALLET_COLUMNS} FROM wallets WHERE (client_id, currency) IN (${pairs}) ORDER BY client_id, currency`,
    )
    .bind(...binds);
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
): Promise<{ client: boolean; wallet: RegisteredWallet | null; region: Region | null }> {
  const [client, wallet] = await db.batch([clientStatement(db, clientId), walletStatement(db, clientId, currency)]);
  const clientRow = client!.results[0] as { region?: string | null } | undefined;
  const walletRow = wallet!.results[0] as WalletRow | undefined;
  if (clientRow === undefined) return { client: false, wallet: null, region: null };
  if (walletRow === undefined) return { client: true, wallet: null, region: regionOf(clientRow.region) };
  const registered = registeredWallet(walletRow);
  return { client: true, wallet: registered, region: registered.region };
}

function walletStatement(db: D1Database, clientId: string, currency: string): D1PreparedStatement {
  return db
    .prepare(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE client_id = ?1 AND currency = ?2`)
    .bind(clientId, currency);
}

/**
 * Registers the client's wallet in the currency, placed in `region`, unless it is already there; answers
 * the registered wallet (an earlier registration's wins, since its object may exist).
 */
export async function openWallet(
  db: D1Database,
  clientId: string,
  currency: string,
  region: Region | null,
  now: number,
): Promise<RegisteredWallet> {
  const [, row] = await db.batch([
    db
      .prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at, region) VALUES (?1, ?2, ?3, ?4)`)
      .bind(clientId, currency, now, region),
    walletStatement(db, clientId, currency),
  ]);
  return registeredWallet(row!.results[0] as WalletRow);
}

/**
 * openWallet for a caller that knows the client but not its region (the sandbox's own top-up): a new
 * wallet takes the client's region, in the same statement. Answers the registered wallet.
 */
export async function openClientWallet(
  db: D1Database,
  clientId: string,
  currency: string,
  now: number,
): Promise<RegisteredWallet> {
  const [, row] = await db.batch([
    db
      .prepare(
        `INSERT OR IGNORE INTO wallets (client_id, currency, created_at, region) SELECT ?1, ?2, ?3, region FROM clients WHERE id = ?1`,
      )
      .bind(clientId, currency, now),
    walletStatement(db, clientId, currency),
  ]);
  return registeredWallet(row!.results[0] as WalletRow);
}

/**
 * Starts moving the client's wallets that are not in `region` (and not already moving): a statement for
 * the batch that sets the client's region, so that every wallet registered before it is moved and every
 * one registered after it is created there.
 */
export function startMovesStatement(
  db: D1Database,
  clientId: string,
  region: Region,
  now = Date.now(),
): D1PreparedStatement {
  // moved_at tells the reconciliation which wallets moved money since its last run.
  return db
    .prepare(
      `UPDATE wallets SET moving_to = ?2, moved_at = ?3 WHERE client_id = ?1 AND moving_to IS NULL AND (region IS NULL OR region <> ?2)`,
    )
    .bind(clientId, region, now);
}

/** The client's wallets a move is under way for. */
export async function movingWallets(db: D1Database, clientId: string): Promise<RegisteredWallet[]> {
  const { results } = await db
    .prepare(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE client_id = ?1 AND moving_to IS NOT NULL ORDER BY currency`)
    .bind(clientId)
    .all<WalletRow>();
  return results.map(registeredWallet);
}

/**
 * Points the registry at the wallet's new object once its balance is there: the current object joins
 * `previous`, and the move is over. Changes nothing when it already has (a retried move).
 */
export function finishMove(
  db: D1Database,
  clientId: string,
  currency: string,
  fromGeneration: number,
): Promise<D1Result> {
  return db
    .prepare(
      `UPDATE wallets SET previous = json_insert(previous, '$[#]', json_object('generation', generation, 'region', region)),
              generation = generation + 1, region = moving_to, moving_to = NULL, moved_at = ?4
        WHERE client_id = ?1 AND currency = ?2 AND generation = ?3 AND moving_to IS NOT NULL`,
    )
    .bind(clientId, currency, fromGeneration, Date.now())
    .run();
}

/** A wallet a move touched, with its client, and when. */
export type MovedWallet = RegisteredWallet & { clientId: string; movedAt: number };

/**
 * Up to `limit` wallets a move started or finished for after `after` (unix ms) and by `to`, oldest first
 * (through the partial index wallets_moved): the reconciliation's feed of wallets whose money moved.
 */
export async function movedWalletsBetween(
  db: D1Database | D1DatabaseSession,
  after: number,
  to: number,
  limit: number,
): Promise<MovedWallet[]> {
  const { results } = await db
    .prepare(
      `SELECT client_id, moved_at, ${WALLET_COLUMNS} FROM wallets INDEXED BY wallets_moved
        WHERE moved_at > ?1 AND moved_at <= ?2 ORDER BY moved_at LIMIT ?3`,
    )
    .bind(after, to, limit)
    .all<WalletRow & { client_id: string; moved_at: number }>();
  return results.map((row) => ({ ...registeredWallet(row), clientId: row.client_id, movedAt: row.moved_at }));
}
