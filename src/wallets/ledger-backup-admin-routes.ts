/**
 * Operator API: a wallet's ledger as a backup (GET …/export) and its restore into a wallet with no entry
 * (POST …/restore). The money lives in the wallet objects, which D1's backups do not cover; the runbook
 * (docs/operations.md, "Backups") exports every wallet and restores into a new deployment.
 */
import { auditLedgerEntryOnce } from "../audit/audit-store";
import { adminCaller } from "../http/admin-auth";
import { fail } from "../kernel/failures";
import { parseBody, parseParams } from "../http/params";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { LedgerExportData, LedgerRestoreData, WalletPathParams } from "./wallet-admin-schemas";
import type { LedgerExport, RestoreResult } from "./ledger-backup";
import {
  findWallet,
  historyOf,
  openWallet,
  placedWallet,
  placementOf,
  type ClientStatement,
} from "./wallet-registry-store";
import { walletExamples } from "./wallet-examples";

/** A restore carries the whole ledger: larger than other bodies (about 30,000 entries in 8 MiB). */
export const LEDGER_RESTORE_MAX_BYTES = 8 * 1024 * 1024;

/** The I/O calls of a restore between its writes, as fault seams (src/kernel/faults.ts). */
export const LEDGER_BACKUP_SEAMS = {
  /** The D1 registration of the wallet (a new deployment's D1 may not have it). */
  register: "wallet.restore.register",
  /** The RPC call that writes the entries into the wallet object. */
  restore: "wallet.restore.write",
  /** The D1 audit row of the restore, written once. */
  audit: "wallet.restore.audit",
} as const;

/** GET /admin/wallets/:clientId/:currency/export: every entry, exact, oldest first. */
const exportWallet =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const { clientId, currency } = parseParams(WalletPathParams, request);
    const found = await findWallet(context.env.DB, clientStatement, clientId, currency);
    if (!found.client) fail("client_not_found", { clientId });
    if (found.wallet === null) fail("wallet_unknown", { clientId, currency });
    // Every object the wallet has been, oldest first: the last is the export (what a restore writes), the
    // others its history.
    const exports = await Promise.all(
      historyOf(found.wallet).map(async (wallet) => ({
        wallet,
        exported: (await placedWallet(context.env, clientId, currency, wallet).exportLedger(
          clientId,
          currency,
        )) as LedgerExport,
      })),
    );
    const { wallet, exported } = exports.at(-1)!;
    const previous = exports.slice(0, -1).map((earlier) => ({
      wallet: earlier.wallet,
      balance: earlier.exported.balance,
      entries: earlier.exported.entries,
      voids: earlier.exported.voids,
    }));
    return ok("Ledger export", { ...exported, wallet, ...(previous.length > 0 ? { previous } : {}) });
  };

/**
 * POST /admin/wallets/:clientId/:currency/restore: writes an export verbatim into the wallet, which must
 * have no entry (409 wallet_not_empty), after checking that the entries chain (400 ledger_chain_broken).
 * Safe to send again: a wallet holding exactly these entries answers as the restore did, and the audit
 * row is written once (keyed by the last entry's seq).
 */
const restoreWallet =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const actor = adminCaller(context);
    const { env } = context;
    const { clientId, currency } = parseParams(WalletPathParams, request);
    const body = await parseBody(LedgerExportData, request, env, LEDGER_RESTORE_MAX_BYTES);
    if (body.clientId !== clientId || body.currency !== currency) {
      fail("invalid_request_body", {
        reason: `the export is of wallet ${body.clientId}/${body.currency}, not ${clientId}/${currency}`,
      });
    }
    const found = await findWallet(env.DB, clientStatement, clientId, currency);
    if (!found.client) fail("client_not_found", { clientId });
    const retry = { reason: "the restore may or may not have been written; send the same export again" };
    let result: RestoreResult;
    try {
      const registered = await io(LEDGER_BACKUP_SEAMS.register, () =>
        openWallet(env.DB, clientId, currency, found.region, Date.now()),
      );
      const wallet = placedWallet(env, clientId, currency, placementOf(registered));
      result = await io(LEDGER_BACKUP_SEAMS.restore, async () => (await wallet.restoreLedger(body)) as RestoreResult);
    } catch (error) {
      logFailure(error, { step: "wallet.restore", requestId: actor.requestId, clientId });
      fail("server_error", retry);
    }
    if (!result.ok) {
      if (result.code === "wallet_not_empty") fail("wallet_not_empty", { clientId, currency, reason: result.reason });
      fail("ledger_chain_broken", { reason: result.reason });
    }
    try {
      await io(LEDGER_BACKUP_SEAMS.audit, () =>
        auditLedgerEntryOnce(env.DB, actor, "wallet.restore", `wallet:${clientId}:${currency}`, {
          seq: body.entries.at(-1)?.seq ?? 0,
          entries: result.entries,
          balance: result.balance,
          exportedAt: body.exportedAt,
        }),
      );
    } catch (error) {
      logFailure(error, { step: LEDGER_BACKUP_SEAMS.audit, requestId: actor.requestId, clientId });
      fail("server_error", retry);
    }
    return ok(result.replayed ? "Ledger already restored" : "Ledger restored", {
      clientId,
      currency,
      entries: result.entries,
      balance: result.balance,
      replayed: result.replayed,
    });
  };

export const ledgerBackupRoutes = (clientStatement: ClientStatement): Route[] => [
  {
    method: "GET",
    path: "/admin/wallets/:clientId/:currency/export",
    handler: exportWallet(clientStatement),
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
  {
    method: "POST",
    path: "/admin/wallets/:clientId/:currency/restore",
    handler: restoreWallet(clientStatement),
    operationId: "adminRestoreLedger",
    example: walletExamples.adminRestoreLedger,
    tag: "Admin: wallets",
    summary: "Restore a ledger export into a wallet that has no entry",
    description:
      "Writes every entry of an export (GET …/export of the same client and currency) verbatim, all or nothing, into a wallet with no entry, and registers the wallet if needed. The entries must chain from zero to the export's `balance`. Sending the same export again answers `Ledger already restored` and writes nothing. Up to 8 MiB.",
    auth: "admin",
    role: "admin",
    params: WalletPathParams,
    body: LedgerExportData,
    data: LedgerRestoreData,
    messages: ["Ledger restored", "Ledger already restored"],
    errors: ["client_not_found", "wallet_not_empty", "ledger_chain_broken"],
  },
];
