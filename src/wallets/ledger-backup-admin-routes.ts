/**
 * Operator API: a wallet's ledger as a backup (GET …/export) and its restore into a wallet with no entry
 * (POST …/restore). The money lives in the wallet objects, which D1's backups do not cover; the runbook
 * (docs/operations.md, "Backups") exports every wallet and restores into a new deployment.
 */
import { auditLedgerEntryOnce } from "../audit/audit-store";
import { adminCaller, previousTokenOpen } from "../http/admin-auth";
import { fail } from "../kernel/failures";
import { parseBody, parseParams } from "../http/params";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { Money } from "../pricing/money";
import type { LedgerEntry } from "./ledger";
import { LedgerExportData, LedgerRestoreData, WalletPathParams } from "./wallet-admin-schemas";
import { exportSignedBy, signExport, type LedgerExport, type RestoreResult } from "./ledger-backup";
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

/** The deployment's ADMIN_TOKEN, the root of the exports' signing key. */
function adminSecret(env: Env): string {
  if (typeof env.ADMIN_TOKEN !== "string" || env.ADMIN_TOKEN.length < 16)
    throw new Error("ADMIN_TOKEN is not set: ledger exports cannot be signed");
  return env.ADMIN_TOKEN;
}

/** The sum of the entries' amounts that `which` selects, exact. */
function total(entries: readonly LedgerEntry[], which: (amount: Money) => boolean): string {
  return entries
    .map((entry) => new Money(entry.amount))
    .filter(which)
    .reduce((sum, amount) => sum.plus(amount), new Money(0))
    .toFixed();
}

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
    const signature = await signExport(exported, adminSecret(context.env));
    const previous = exports.slice(0, -1).map((earlier) => ({
      wallet: earlier.wallet,
      balance: earlier.exported.balance,
      entries: earlier.exported.entries,
      voids: earlier.exported.voids,
    }));
    return ok("Ledger export", {
      ...exported,
      wallet,
      signature,
      ...(previous.length > 0 ? { previous } : {}),
    });
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
    // Only an export this deployment produced, unchanged: its signature under ADMIN_TOKEN (or the token a
    // rotation replaced, in its window).
    const secrets = [adminSecret(env), ...(previousTokenOpen(env, Date.now()) ? [env.ADMIN_TOKEN_PREVIOUS!] : [])];
    if (!(await exportSignedBy(body, body.signature, secrets)))
      fail("invalid_request_body", {
        reason: "the export's signature does not hold: only an export this deployment produced, unchanged, is restored",
      });
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
          // A money movement: the restore brings the wallet from nothing to `amount` (its entries' total),
          // as credits and debits.
          amount: result.balance,
          credits: total(body.entries, (amount) => amount.isPositive()),
          debits: total(body.entries, (amount) => amount.isNegative()),
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
      "Writes every entry of an export (GET …/export of the same client and currency, by this deployment: its `signature` must hold, or the answer is 400 invalid_request_body) verbatim, all or nothing, into a wallet with no entry, and registers the wallet if needed. Audited as `wallet.restore` with the total it brings in (`amount`, `credits`, `debits`). The entries must chain from zero to the export's `balance`. Sending the same export again answers `Ledger already restored` and writes nothing. Up to 8 MiB.",
    auth: "admin",
    role: "admin",
    params: WalletPathParams,
    body: LedgerExportData,
    data: LedgerRestoreData,
    messages: ["Ledger restored", "Ledger already restored"],
    errors: ["client_not_found", "wallet_not_empty", "ledger_chain_broken"],
  },
];
