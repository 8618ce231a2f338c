/**
 * A ledger restore is a posting under dual control (docs/operator-api.md, Dual control): the balance it
 * brings counts in its requester's window; beyond it, it waits as a restore request with its export kept
 * beside it, which only another admin approves; an approval cut off anywhere restores once; a restore
 * whose wallet is no longer empty fails the request.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults, type FaultWhen } from "../../src/kernel/faults";
import type { LedgerExport } from "../../src/wallets/ledger-backup";
import { LEDGER_BACKUP_SEAMS } from "../../src/treasury/ledger-restore";
import { topUpKey } from "../../src/wallets/ledger-keys";
import { DUAL_CONTROL_SEAMS } from "../../src/treasury/seams";
import { admin, exportSignature, madeOperator } from "../admin-helpers";
import { addClient, wallet } from "../helpers";
import { uid } from "../order-helpers";

afterEach(() => clearFaults());

let ada: string;
let bo: string;
let olga: string;

beforeAll(async () => {
  await env.DB.prepare(`INSERT INTO approval_limits (currency, amount, updated_at) VALUES ('USD', '100', 0)`).run();
  ada = (await madeOperator("Restoring Ada", "admin", 10)).token;
  bo = (await madeOperator("Approving Bo", "admin", 5)).token;
  olga = (await madeOperator("Operator Olga", "operator", 6)).token;
});

/** An export of 500 for a new client's empty wallet, signed as this deployment signs one. */
async function exportFor(clientId: string): Promise<LedgerExport & { signature: string }> {
  const source = wallet(uid("src"), "USD");
  await source.post({ key: topUpKey(uid("t")), kind: "top_up", amount: "500", reason: "bank" });
  const exported = { ...((await source.exportLedger(clientId, "USD")) as LedgerExport), clientId };
  await addClient(clientId, {});
  return { ...exported, signature: await exportSignature(exported) };
}

const restore = (clientId: string, body: unknown, token = ada) =>
  admin("POST", `/admin/wallets/${clientId}/USD/restore`, body, { token });
const approve = (id: number, token = bo) =>
  admin("POST", `/admin/posting-requests/${id}/approve`, undefined, { token });

describe("a restore beyond the window", () => {
  it("waits as a request with its export, approved only by another admin, and restores once", async () => {
    const clientId = uid("rr");
    const body = await exportFor(clientId);
    const asked = await restore(clientId, body);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body).toMatchObject({
      message: "Restore awaits approval",
      data: { entries: 0, replayed: false, request: { kind: "restore", amount: 500, status: "pending" } },
    });
    expect(await wallet(clientId, "USD").balance()).toBe("0");
    const again = await restore(clientId, body);
    expect(again.body).toMatchObject({ message: "Restore request already made", data: { replayed: true } });
    const id = asked.body.data.request.id as number;
    expect((await approve(id, ada)).body.code).toBe("decider_not_allowed");
    expect((await approve(id, olga)).body).toMatchObject({ code: "forbidden", details: { needed: "admin" } });
    const approved = await approve(id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data).toMatchObject({
      balance: 500,
      entry: null,
      request: { status: "approved", entrySeq: 1 },
    });
    expect(await wallet(clientId, "USD").balance()).toBe("500");
    const rows = await env.DB.prepare(
      `SELECT actor_name, details FROM audit_log WHERE action = 'wallet.restore' AND target = ?1`,
    )
      .bind(`wallet:${clientId}:USD`)
      .all<{ actor_name: string; details: string }>();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]!.actor_name).toBe("Approving Bo");
    expect(JSON.parse(rows.results[0]!.details)).toMatchObject({ postingRequest: id, amount: "500" });
  });

  const cuts: [string, FaultWhen][] = [
    [DUAL_CONTROL_SEAMS.decide, "after"],
    [LEDGER_BACKUP_SEAMS.register, "before"],
    [LEDGER_BACKUP_SEAMS.restore, "after"],
    [LEDGER_BACKUP_SEAMS.audit, "before"],
    [DUAL_CONTROL_SEAMS.record, "after"],
  ];
  for (const [seam, when] of cuts)
    it(`an approval cut off at ${seam} (${when}), approved again, restores once`, async () => {
      const clientId = uid("rc");
      const asked = await restore(clientId, await exportFor(clientId));
      const id = asked.body.data.request.id as number;
      armFault(seam, { when });
      expect((await approve(id)).status).toBe(500);
      clearFaults();
      const done = await approve(id);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(await wallet(clientId, "USD").audit()).toEqual({ balance: "500", ledgerSum: "500", entries: 1 });
      const audited = await env.DB.prepare(
        `SELECT COUNT(*) AS n FROM audit_log WHERE action = 'wallet.restore' AND target = ?1`,
      )
        .bind(`wallet:${clientId}:USD`)
        .first<{ n: number }>();
      expect(audited!.n).toBe(1);
    });

  it("a restore request cut off before it is stored stores it whole when sent again", async () => {
    const clientId = uid("rs");
    const body = await exportFor(clientId);
    armFault(DUAL_CONTROL_SEAMS.restoreRequest, { when: "before" });
    expect((await restore(clientId, body)).status).toBe(500);
    clearFaults();
    const asked = await restore(clientId, body);
    expect(asked.body.message).toBe("Restore awaits approval");
    expect((await approve(asked.body.data.request.id)).status).toBe(200);
    expect(await wallet(clientId, "USD").balance()).toBe("500");
  });

  it("fails when the wallet is no longer empty by the time it is approved", async () => {
    const clientId = uid("rf");
    const asked = await restore(clientId, await exportFor(clientId));
    await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      amount: "1",
      idempotencyKey: uid("k"),
      reason: "meanwhile",
    });
    const refused = await approve(asked.body.data.request.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("wallet_not_empty");
    const listed = await admin("GET", `/admin/posting-requests?status=failed&clientId=${clientId}`);
    expect(listed.body.data.requests).toMatchObject([{ kind: "restore", status: "failed" }]);
    expect(await wallet(clientId, "USD").balance()).toBe("1");
  });
});
