/**
 * Restoring a wallet's ledger from an export (ledger-backup.ts), as POST …/restore asks for it and as the
 * approval of a restore request carries it out. A restore is a posting under dual control: it brings the
 * wallet from nothing to the export's balance, which counts in its requester's window like a top-up
 * (posting-actions.ts, throughWindow); above what is left of it, it waits as a request, its export kept
 * with it, for a second person. Only an export this deployment signed, in this mode, is restored.
 */
import { auditLedgerEntryOnce } from "../audit/audit-store";
import { clientStatement } from "../clients/client-store";
import { previousTokenOpen } from "../http/admin-auth";
import { fail } from "../kernel/failures";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { serviceMode } from "../kernel/service-mode";
import { Money } from "../pricing/money";
import type { PostingRequest } from "./approval-store";
import { insertRestoreRequest } from "./approval-store";
import {
  brokenChain,
  exportSignedBy,
  V1_EXPORTS_UNTIL,
  type ExportedEntry,
  type LedgerExport,
  type RestoreResult,
  type Signer,
} from "../wallets/ledger-backup";
import type { Approval, HeldPosting, PostingActor } from "./posting-actions";
import { throughWindow } from "./posting-actions";
import { DUAL_CONTROL_SEAMS } from "./seams";
import { openWallet, placedWallet, placementOf } from "../wallets/wallet-registry-store";
import { findWallet } from "../wallets/wallet-registry-store";

declare global {
  interface Env {
    /**
     * The export key a rotation (or the lost deployment a new one restores) had: exports signed under it
     * still verify while it is set. Optional: wrangler.toml does not require it.
     */
    LEDGER_EXPORT_KEY_PREVIOUS?: string;
  }
}

/** The I/O calls of a restore between its writes, as fault seams (src/kernel/faults.ts). */
export const LEDGER_BACKUP_SEAMS = {
  /** The D1 registration of the wallet (a new deployment's D1 may not have it). */
  register: "wallet.restore.register",
  /** The RPC call that writes the entries into the wallet object. */
  restore: "wallet.restore.write",
  /** The D1 audit row of the restore, written once. */
  audit: "wallet.restore.audit",
} as const;

/** An export as a restore takes it (a v1 export's entries have no note). */
export type RestoreBody = Omit<LedgerExport, "entries" | "signature"> & { entries: ExportedEntry[]; signature: string };

function usable(secret: string | undefined): secret is string {
  return typeof secret === "string" && secret.length >= 16;
}

/** This deployment, as an export's signature names it. */
export function signer(env: Env): Signer {
  return { deployment: env.DEPLOYMENT ?? "", mode: serviceMode(env) };
}

/** The key exports are signed with: LEDGER_EXPORT_KEY (a deployment without it cannot sign: 500). */
export function exportKey(env: Env): string {
  if (!usable(env.LEDGER_EXPORT_KEY)) throw new Error("LEDGER_EXPORT_KEY is not set: ledger exports cannot be signed");
  return env.LEDGER_EXPORT_KEY;
}

/**
 * The admin tokens a v1 export may be signed under at `now`: ADMIN_TOKEN, and the token a rotation replaced
 * while its window is open; none from V1_EXPORTS_UNTIL on, when the overlap is over.
 */
export function v1Tokens(
  env: Pick<Env, "ADMIN_TOKEN" | "ADMIN_TOKEN_PREVIOUS" | "ADMIN_TOKEN_PREVIOUS_UNTIL">,
  now: number,
): string[] {
  if (now >= V1_EXPORTS_UNTIL) return [];
  return [env.ADMIN_TOKEN, ...(previousTokenOpen(env, now) ? [env.ADMIN_TOKEN_PREVIOUS!] : [])].filter(usable);
}

/**
 * 400 unless the export is this deployment's, unchanged: of the wallet named in the path, its signature
 * holding under the export key (or the previous one), or, for a v1 export before V1_EXPORTS_UNTIL, under
 * ADMIN_TOKEN (or the token a rotation replaced, in its window); and its entries chain from zero.
 */
export async function checkExport(env: Env, body: RestoreBody, clientId: string, currency: string): Promise<void> {
  if (body.clientId !== clientId || body.currency !== currency)
    fail("invalid_request_body", {
      reason: `the export is of wallet ${body.clientId}/${body.currency}, not ${clientId}/${currency}`,
    });
  const keys = {
    exportKeys: [exportKey(env), ...(usable(env.LEDGER_EXPORT_KEY_PREVIOUS) ? [env.LEDGER_EXPORT_KEY_PREVIOUS] : [])],
    adminTokens: v1Tokens(env, Date.now()),
  };
  if (!(await exportSignedBy(body, body.signature, keys, signer(env))))
    fail("invalid_request_body", {
      reason:
        "the export's signature does not hold: only an export this deployment produced, in this mode, unchanged, is restored",
    });
  const broken = brokenChain(body);
  if (broken !== null) fail("ledger_chain_broken", { reason: broken });
}

/** What a restore answers: written (or found written), or waiting for a second person. */
export type RestoreAnswer =
  | { held: false; clientId: string; currency: string; entries: number; balance: string; replayed: boolean }
  | HeldPosting;

/**
 * Writes the export into the wallet (registering it if needed), all or nothing, and audits it, once, only if
 * the restore wrote entries: a wallet that holds them already because a restore wrote them answers as the
 * restore did (its audit row written if it was missing); one that wrote them itself is 409 wallet_not_empty.
 */
export async function writeRestore(
  env: Env,
  actor: PostingActor,
  body: RestoreBody,
  approval: Approval | null,
): Promise<RestoreAnswer> {
  const { clientId, currency } = body;
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
  if (result.wrote) await auditRestore(env, actor, body, result, approval);
  return {
    held: false,
    clientId,
    currency,
    entries: result.entries,
    balance: result.balance,
    replayed: result.replayed,
  };
}

async function auditRestore(
  env: Env,
  actor: PostingActor,
  body: RestoreBody,
  result: Extract<RestoreResult, { ok: true }>,
  approval: Approval | null,
): Promise<void> {
  const total = (which: (amount: Money) => boolean) =>
    body.entries
      .map((entry) => new Money(entry.amount))
      .filter(which)
      .reduce((sum, amount) => sum.plus(amount), new Money(0))
      .toFixed();
  try {
    await io(LEDGER_BACKUP_SEAMS.audit, () =>
      auditLedgerEntryOnce(env.DB, actor, "wallet.restore", `wallet:${body.clientId}:${body.currency}`, {
        seq: body.entries.at(-1)?.seq ?? 0,
        entries: result.entries,
        // A money movement: the restore brings the wallet from nothing to `amount` (its entries' total),
        // as credits and debits.
        amount: result.balance,
        credits: total((amount) => amount.isPositive()),
        debits: total((amount) => amount.isNegative()),
        balance: result.balance,
        exportedAt: body.exportedAt,
        ...(approval === null
          ? {}
          : {
              postingRequest: approval.requestId,
              requestedBy: approval.requestedBy,
              requestedByName: approval.requestedByName,
            }),
      }),
    );
  } catch (error) {
    logFailure(error, { step: LEDGER_BACKUP_SEAMS.audit, requestId: actor.requestId, clientId: body.clientId });
    fail("server_error", { reason: "the restore may or may not have been written; send the same export again" });
  }
}

/** A restore's idempotency key: its export's signature, so that the same export sent again is the same restore. */
export function restoreKey(body: RestoreBody): string {
  return `restore:${body.signature}`;
}

/**
 * POST …/restore as one credential asks it: the export checked, then counted in the requester's window
 * (the balance it brings); within it, written; beyond it, stored as a restore request with its export.
 */
export async function askRestore(
  env: Env,
  actor: PostingActor,
  wallet: { clientId: string; currency: string },
  body: RestoreBody,
): Promise<RestoreAnswer> {
  const { clientId, currency } = wallet;
  await checkExport(env, body, clientId, currency);
  const exported = JSON.stringify(body);
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  const reason = `restore of the export made at ${new Date(body.exportedAt).toISOString()}`;
  const routed = await throughWindow(
    env,
    actor,
    { clientId, currency, reason, note: null, idempotencyKey: restoreKey(body) },
    {
      kind: "restore",
      amount: new Money(body.balance).toFixed(),
      keys: [],
      hold: (asked) =>
        io(DUAL_CONTROL_SEAMS.restoreRequest, () => insertRestoreRequest(env.DB, actor, asked, exported)),
    },
    found.wallet,
  );
  if ("held" in routed) return routed.held;
  return writeRestore(env, actor, body, null);
}

/** The approval of a restore request: its kept export, written as the requester asked it. */
export async function approvedRestore(
  env: Env,
  actor: PostingActor,
  request: PostingRequest,
  exported: string | null,
): Promise<RestoreAnswer> {
  if (exported === null) fail("ledger_chain_broken", { reason: "the request's export is missing" });
  const body = JSON.parse(exported) as RestoreBody;
  return writeRestore(env, actor, body, {
    requestId: request.id,
    requestedBy: request.requestedBy,
    requestedByName: request.requestedByName,
  });
}
