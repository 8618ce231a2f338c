/**
 * What the reconciliation reads of one wallet-day, from each source (docs/operator-api.md, Reconciliation):
 * the books' rows of the wallet in every part of the client's day, the day's window of the ledger in every
 * object the wallet has been, the codes the codes table sells to the day's orders, and the audit rows of
 * the wallet's postings. Reads only, each bounded: a day larger than one check reads is read in part and
 * says so (`whole: false`).
 */
import { layoutsOf } from "../books/directory-store";
import { shardOf } from "../books/books-writer";
import { partsOn } from "../books/shard-rules";
import { codesSoldTo, type SoldCode } from "../inventory/code-store";
import { walletName } from "../wallets/ledger";
import { mergePages, type LedgerDayPage } from "../wallets/ledger-day-rules";
import { walletTarget } from "../treasury/posting-actions";
import type { WalletObject } from "../wallets/wallet-object";
import {
  historyOf,
  placedWallet,
  placementOf,
  registeredWallets,
  registeredWalletsStatement,
  type RegisteredWallet,
} from "../wallets/wallet-registry-store";
import { bookedOrderOf, type BookedOrder, type WalletDay } from "./day-rules";
import { auditedEntries } from "./reconciliation-feeds";

export type ReconcileEnv = Pick<Env, "DB" | "WALLETS" | "ORDERS" | "BOOKS">;

/** Rows of one part of a day one check reads at most. */
export const DAY_ROWS = 2_000;
/** Pages of one wallet object's day window one check reads at most (of LEDGER_DAY_PAGE entries). */
export const DAY_LEDGER_PAGES = 4;

/** One object a wallet has been: its place in the wallet's history, its name and its stub. */
export interface WalletObjectAt {
  clientId: string;
  currency: string;
  placements: ReturnType<typeof historyOf>;
  at: number;
  name: string;
  stub: DurableObjectStub<WalletObject>;
  /** Whether the wallet has moved on from it (it must then hold nothing). */
  movedOn: boolean;
}

export function walletObjectAt(
  env: ReconcileEnv,
  wallet: RegisteredWallet,
  clientId: string,
  at: number,
): WalletObjectAt {
  const placements = historyOf(wallet);
  const placement = placements[at]!;
  return {
    clientId,
    currency: wallet.currency,
    placements,
    at,
    name: walletName(clientId, wallet.currency, placement.generation, placement.region),
    stub: placedWallet(env, clientId, wallet.currency, placement),
    movedOn: placement.generation < placementOf(wallet).generation,
  };
}

/** The registry rows of these wallets, by `client\0currency`. */
export async function registryOf(
  db: D1Database,
  wallets: readonly { clientId: string; currency: string }[],
): Promise<Map<string, RegisteredWallet>> {
  const found = new Map<string, RegisteredWallet>();
  for (let start = 0; start < wallets.length; start += 45) {
    const chunk = wallets.slice(start, start + 45);
    const pairs = `VALUES ${chunk.map((_, at) => `(?${2 * at + 1}, ?${2 * at + 2})`).join(", ")}`;
    const { results } = await registeredWalletsStatement(
      db,
      pairs,
      chunk.flatMap((wallet) => [wallet.clientId, wallet.currency]),
    ).all<{ client_id: string }>();
    registeredWallets(results).forEach((wallet, at) =>
      found.set(`${results[at]!.client_id}\u0000${wallet.currency}`, wallet),
    );
  }
  return found;
}

/** What one check read of a wallet-day. */
export interface DaySources {
  rows: BookedOrder[];
  /** The ledger's day in each object the wallet has been, oldest first (none: the registry has no such wallet). */
  ledgers: { object: WalletObjectAt; page: LedgerDayPage }[];
  /** The codes sold to the day's orders (those of its books and of its ledger). */
  sold: SoldCode[];
  /** The audit log's rows of each object's postings: `action:seq` keys, and the last seq a restore wrote. */
  audited: Map<string, { keys: Set<string>; restoredThrough: number }>;
  /** False when a part of the day was beyond one check's bounds (`large` says which). */
  whole: boolean;
  large: string[];
}

/** The books' rows of the wallet in every part of the day, newest first, up to DAY_ROWS a part. */
async function bookedRows(env: ReconcileEnv, day: WalletDay, large: string[]): Promise<BookedOrder[]> {
  const parts = partsOn(await layoutsOf(env.DB, day.clientId), day.day);
  const rows: BookedOrder[] = [];
  for (let part = 0; part < parts; part += 1) {
    const found = await shardOf(env.BOOKS, { clientId: day.clientId, day: day.day, part }).page({
      wallet: day.currency,
      limit: DAY_ROWS + 1,
    });
    if (found.length > DAY_ROWS) large.push(`more than ${DAY_ROWS} rows in part ${part}`);
    rows.push(...found.slice(0, DAY_ROWS).map(bookedOrderOf));
  }
  return rows;
}

/** One object's day window, a page at a time, up to DAY_LEDGER_PAGES pages. */
async function ledgerDayOf(object: WalletObjectAt, day: number, large: string[]): Promise<LedgerDayPage> {
  let page = (await object.stub.ledgerDay(day, null)) as LedgerDayPage;
  for (let pages = 1; page.next !== null; pages += 1) {
    if (pages >= DAY_LEDGER_PAGES) {
      large.push(`more than ${pages} pages of ledger in ${object.name}`);
      break;
    }
    page = mergePages(page, (await object.stub.ledgerDay(day, page.next)) as LedgerDayPage);
  }
  return page;
}

/** Everything one check of `day` reads; `wallet` is the day's registry row (undefined: no such wallet). */
export async function daySources(
  env: ReconcileEnv,
  day: WalletDay,
  wallet: RegisteredWallet | undefined,
): Promise<DaySources> {
  const large: string[] = [];
  const rows = await bookedRows(env, day, large);
  const ledgers: DaySources["ledgers"] = [];
  const audited = new Map<string, { keys: Set<string>; restoredThrough: number }>();
  if (wallet !== undefined)
    for (let at = 0; at < historyOf(wallet).length; at += 1) {
      const object = walletObjectAt(env, wallet, day.clientId, at);
      const page = await ledgerDayOf(object, day.day, large);
      ledgers.push({ object, page });
      if (page.postings.length > 0)
        audited.set(
          object.name,
          await auditedEntries(env.DB, walletTarget(day.clientId, day.currency, object.placements[at]!), object.stub),
        );
    }
  const orderIds = new Set(rows.map((row) => row.id));
  for (const { page } of ledgers) for (const orderId of Object.keys(page.orders)) orderIds.add(orderId);
  const sold = await codesSoldTo(env.DB, [...orderIds]);
  return { rows, ledgers, sold, audited, whole: large.length === 0, large };
}
