/**
 * The reconciliation takes a ledger's entries as audited by a restore only where a restore really wrote
 * them: the wallet object keeps its own record of the restores that wrote its ledger, and a `wallet.restore`
 * audit row for a wallet no restore wrote (a no-op restore's, or one inserted by hand) covers nothing, so a
 * top-up without its audit row stays found.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { reconcile } from "../../src/reconciliation/reconciliation";
import { walletName } from "../../src/wallets/ledger";
import type { LedgerExport } from "../../src/wallets/ledger-backup";
import { topUpKey } from "../../src/wallets/ledger-keys";
import { admin, exportSignature } from "../admin-helpers";
import { addClient, seedDemo, wallet } from "../helpers";
import { uid } from "../order-helpers";
import { auditedClient } from "./reconciliation-helpers";

const start = Date.now() - 1_000;
beforeAll(seedDemo);

async function problemsOf(clientId: string): Promise<string[][]> {
  const run = await reconcile(env, { createdFrom: start, createdTo: Date.now(), grace: 0 });
  return run.mismatches
    .filter((mismatch) => mismatch.clientId === clientId)
    .map((mismatch) => [mismatch.check, mismatch.problem]);
}

/** A `wallet.restore` audit row naming the wallet through `seq`, as a restore's would. */
async function restoreRow(clientId: string, seq: number): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, 'admin', 'wallet.restore', ?2, 'r', ?3)`,
  )
    .bind(Date.now(), `wallet:${clientId}:USD`, JSON.stringify({ seq, entries: seq, amount: "50" }))
    .run();
}

describe("restored entries", () => {
  it("a restore's audit row for a wallet no restore wrote covers nothing: the top-up without its row stays found", async () => {
    const { id: clientId } = await auditedClient();
    const sneaked = await wallet(clientId, "USD").post({ key: topUpKey(uid()), kind: "top_up", amount: "50" });
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    const unaudited = ["posting_audited", `top_up #${seq} of 50 in ${walletName(clientId, "USD")} has no audit row`];
    expect(await problemsOf(clientId)).toEqual([unaudited]);
    // The wallet's own export posted back into it: refused, and no row claims a restore.
    const exported = await admin("GET", `/admin/wallets/${clientId}/USD/export`);
    expect((await admin("POST", `/admin/wallets/${clientId}/USD/restore`, exported.body.data)).status).toBe(409);
    expect(await problemsOf(clientId)).toEqual([unaudited]);
    // Even a restore row written by hand does not hide it: the wallet says no restore wrote its ledger.
    await restoreRow(clientId, seq);
    expect(await wallet(clientId, "USD").restoredThrough()).toBe(0);
    expect(await problemsOf(clientId)).toEqual([unaudited]);
  });

  it("a wallet a restore wrote has its restored entries taken as audited, and only those", async () => {
    const { id: source } = await auditedClient();
    await wallet(source, "USD").post({ key: topUpKey(uid()), kind: "top_up", amount: "7" });
    const exported = (await admin("GET", `/admin/wallets/${source}/USD/export`)).body.data as LedgerExport;
    const clientId = uid("restored");
    await addClient(clientId, {});
    const relabelled = { ...exported, clientId };
    const restored = await admin("POST", `/admin/wallets/${clientId}/USD/restore`, {
      ...relabelled,
      signature: await exportSignature(relabelled),
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const through = exported.entries.at(-1)!.seq;
    expect(await wallet(clientId, "USD").restoredThrough()).toBe(through);
    // An audited top-up after it, so that the run reads this wallet.
    const audited = await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      amount: "1",
      idempotencyKey: uid("k"),
      reason: "after the restore",
    });
    expect(audited.body.data.entry.seq).toBe(through + 1);
    // The restored ledger holds a top-up that never had its audit row (the 7): the restore's row covers it.
    expect(await problemsOf(clientId)).toEqual([]);
    // A top-up after the restore is its own: without its row it is found.
    const later = await wallet(clientId, "USD").post({ key: topUpKey(uid()), kind: "top_up", amount: "3" });
    expect(later.ok).toBe(true);
    const unaudited = [
      "posting_audited",
      `top_up #${through + 2} of 3 in ${walletName(clientId, "USD")} has no audit row`,
    ];
    expect(await problemsOf(clientId)).toEqual([unaudited]);
    // A row claiming a later restore covers no more than the wallet says a restore wrote.
    await restoreRow(clientId, through + 2);
    expect(await problemsOf(clientId)).toEqual([unaudited]);
  });
});
