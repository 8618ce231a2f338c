/**
 * Operator API: a wallet's ledger as a backup (GET …/export) and its restore into a wallet with no entry
 * (POST …/restore). The money lives in the wallet objects, which D1's backups do not cover; the runbook
 * (docs/operations.md, "Backups") exports every wallet and restores into a new deployment.
 */
import { fail } from "../kernel/failures";
import { readJson } from "../http/body";
import { clientStatement } from "../clients/client-store";
import { route, type AdminCaller, type Route } from "../http/route";
import { LedgerExportData, LedgerRestoreData, WalletPathParams } from "../wallets/wallet-admin-schemas";
import { signExport, type LedgerExport } from "../wallets/ledger-backup";
import { askRestore, exportKey, signer, type RestoreBody } from "./ledger-restore";
import { postingRequestView } from "./approval-views";
import { findWallet, historyOf, placedWallet } from "../wallets/wallet-registry-store";
import { walletExamples } from "../wallets/wallet-examples";

export { LEDGER_BACKUP_SEAMS } from "./ledger-restore";

/** A restore carries the whole ledger: larger than other bodies (about 30,000 entries in 8 MiB). */
export const LEDGER_RESTORE_MAX_BYTES = 8 * 1024 * 1024;

interface WalletPath {
  clientId: string;
  currency: string;
}

/** GET /admin/wallets/:clientId/:currency/export: every entry, exact, oldest first. */
async function exportWallet(env: Env, { clientId, currency }: WalletPath) {
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (found.wallet === null) fail("wallet_unknown", { clientId, currency });
  // Every object the wallet has been, oldest first: the last is the export (what a restore writes), the
  // others its history.
  const exports = await Promise.all(
    historyOf(found.wallet).map(async (wallet) => ({
      wallet,
      exported: (await placedWallet(env, clientId, currency, wallet).exportLedger(clientId, currency)) as LedgerExport,
    })),
  );
  const { wallet, exported } = exports.at(-1)!;
  const signature = await signExport(exported, exportKey(env), signer(env));
  const previous = exports.slice(0, -1).map((earlier) => ({
    wallet: earlier.wallet,
    balance: earlier.exported.balance,
    entries: earlier.exported.entries,
    voids: earlier.exported.voids,
  }));
  return { ...exported, wallet, signature, ...(previous.length > 0 ? { previous } : {}) };
}

/**
 * POST /admin/wallets/:clientId/:currency/restore: writes an export verbatim into the wallet, which must
 * have no entry (409 wallet_not_empty), after checking its signature and that the entries chain (400
 * ledger_chain_broken); or, beyond what its requester may move alone, stores it as a restore request
 * (ledger-restore.ts). Safe to send again: a wallet a restore wrote with exactly these entries answers as
 * the restore did, and the audit row is written once (keyed by the last entry's seq).
 */
async function restoreWallet(
  { env, caller }: { env: Env; caller: AdminCaller },
  { clientId, currency }: WalletPath,
  body: RestoreBody,
) {
  const answer = await askRestore(env, caller, { clientId, currency }, body);
  if (answer.held)
    return {
      message: answer.replayed ? ("Restore request already made" as const) : ("Restore awaits approval" as const),
      data: {
        clientId,
        currency,
        entries: 0,
        balance: answer.balance.toFixed(),
        replayed: answer.replayed,
        request: postingRequestView(answer.request, Date.now()),
      },
    };
  return {
    message: answer.replayed ? ("Ledger already restored" as const) : ("Ledger restored" as const),
    data: {
      clientId,
      currency,
      entries: answer.entries,
      balance: answer.balance,
      replayed: answer.replayed,
      request: null,
    },
  };
}

export const ledgerBackupRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/wallets/:clientId/:currency/export",
      operationId: "adminExportLedger",
      example: walletExamples.adminExportLedger,
      tag: "Admin: wallets",
      summary: "A wallet's whole ledger as a backup, amounts as exact decimal strings",
      description:
        "Every entry of the wallet, oldest first, with the balance at export: what POST …/restore takes. The wallets' money is in their Durable Objects, which D1's backups do not hold: keep one export per wallet (docs/operations.md, Backups). A wallet moved to another region is exported from its current object (`wallet`), with its earlier objects' ledgers in `previous`, oldest first.",
      auth: "admin",
      role: "viewer",
      params: WalletPathParams,
      data: LedgerExportData,
      messages: ["Ledger export"],
      errors: ["client_not_found", "wallet_unknown"],
    },
    async ({ params, env, ok }) => ok("Ledger export", await exportWallet(env, params)),
  ),
  route(
    {
      method: "POST",
      path: "/admin/wallets/:clientId/:currency/restore",
      operationId: "adminRestoreLedger",
      example: walletExamples.adminRestoreLedger,
      tag: "Admin: wallets",
      summary: "Restore a ledger export into a wallet that has no entry",
      description:
        "Writes every entry of an export (GET …/export of the same client and currency, by this deployment in this mode: its `signature` must hold, or the answer is 400 invalid_request_body) verbatim, all or nothing, into a wallet with no entry, and registers the wallet if needed. A restore is a posting under dual control: the balance it brings counts in the caller's 24-hour window like a top-up, and beyond what is left of it nothing is written: the answer is `Restore awaits approval` with the restore request in `request`, which a second person approves (POST /admin/posting-requests/{id}/approve, an admin) within 24 hours. Audited as `wallet.restore` with the total it brings in (`amount`, `credits`, `debits`), only when it wrote entries. The entries must chain from zero to the export's `balance`. Sending the same export again answers `Ledger already restored` (or the request as it is) and writes nothing; a wallet that holds the same entries because it wrote them itself is 409 wallet_not_empty. Up to 8 MiB.",
      auth: "admin",
      role: "admin",
      params: WalletPathParams,
      body: { schema: LedgerExportData, from: (request: Request) => readJson(request, LEDGER_RESTORE_MAX_BYTES) },
      data: LedgerRestoreData,
      messages: [
        "Ledger restored",
        "Ledger already restored",
        "Restore awaits approval",
        "Restore request already made",
      ],
      errors: ["client_not_found", "wallet_not_empty", "ledger_chain_broken", "idempotency_conflict"],
    },
    async ({ params, body, caller, env, ok }) => {
      const answer = await restoreWallet({ env, caller }, params, body as RestoreBody);
      return ok(answer.message, answer.data);
    },
  ),
];
