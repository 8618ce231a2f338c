/**
 * The money's backup: a wallet's ledger exported (every entry, exact decimals) and restored into an empty
 * wallet gives the same balance, the same entries and the same idempotency keys; a restore into a wallet
 * with entries, or of entries that do not chain, writes nothing.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { armFault, clearFaults, firedFaults } from "../../src/kernel/faults";
import { LEDGER_BACKUP_SEAMS } from "../../src/treasury/ledger-backup-admin-routes";
import { admin, auditActions } from "../admin-helpers";
import { addClient } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import {
  brokenChain,
  exportSignedBy,
  LEDGER_EXPORT_FORMAT,
  LEDGER_EXPORT_FORMAT_V1,
  signExport,
  V1_EXPORTS_UNTIL,
  type LedgerExport,
} from "../../src/wallets/ledger-backup";
import { v1Tokens } from "../../src/treasury/ledger-restore";
import { derivedHmacKey, toBase64 } from "../../src/kernel/crypto";
import { ADMIN_TOKEN } from "../admin-helpers";
import { chargeKey, refundKey, topUpKey, adjustmentKey } from "../../src/wallets/ledger-keys";

function walletNamed(name: string) {
  return env.WALLETS.get(env.WALLETS.idFromName(name));
}

/** A wallet with every kind of movement, amounts that float arithmetic would get wrong. */
async function busyWallet(name: string) {
  const wallet = walletNamed(name);
  expect((await wallet.post({ key: topUpKey("t1"), kind: "top_up", amount: "100.10" })).ok).toBe(true);
  expect((await wallet.post({ key: topUpKey("t2"), kind: "top_up", amount: "0.2" })).ok).toBe(true);
  expect(
    (await wallet.post({ key: chargeKey("ord_a"), kind: "order_charge", amount: "33.33", orderId: "ord_a" })).ok,
  ).toBe(true);
  expect(
    (await wallet.post({ key: refundKey("ord_a", "SKU-1"), kind: "order_refund", amount: "11.11", orderId: "ord_a" }))
      .ok,
  ).toBe(true);
  expect(
    (await wallet.post({ key: adjustmentKey("a1"), kind: "adjustment", amount: "-0.06", reason: "bank fee" })).ok,
  ).toBe(true);
  await wallet.voidOrder("ord_b", "expired");
  return wallet;
}

describe("wallet ledger export and restore", () => {
  it("restores an export into an empty wallet with the same balance, entries and keys", async () => {
    const source = await busyWallet("backup-source:USD");
    const exported = (await source.exportLedger("backup-source", "USD")) as LedgerExport;
    expect(exported.format).toBe(LEDGER_EXPORT_FORMAT);
    expect(exported.balance).toBe("78.02");
    // The void of ord_b moved no money: a mark beside the ledger, carried by the export all the same.
    expect(exported.entries).toHaveLength(5);
    expect(exported.voids).toEqual([{ orderId: "ord_b", voidedAt: expect.any(Number), reason: "expired" }]);
    // What an operator keeps is the JSON text: it must carry the amounts exactly.
    const kept = JSON.parse(JSON.stringify(exported)) as LedgerExport;

    const target = walletNamed("backup-target:USD");
    // Read once first, so that the object holds an empty wallet's balance when the restore lands.
    expect(await target.balance()).toBe("0");
    expect(await target.restoreLedger(kept)).toEqual({
      ok: true,
      entries: 5,
      balance: "78.02",
      replayed: false,
      wrote: true,
    });
    // Sent again (its answer lost): the same answer, nothing written twice.
    expect(await target.restoreLedger(kept)).toEqual({
      ok: true,
      entries: 5,
      balance: "78.02",
      replayed: true,
      wrote: true,
    });
    expect(await target.restoredThrough()).toBe(exported.entries.at(-1)!.seq);
    // The wallet it came from holds the same entries, but no restore wrote them: it is not empty.
    expect(await source.restoreLedger(kept)).toEqual({
      ok: false,
      code: "wallet_not_empty",
      reason: "the wallet has 5 entries",
    });
    expect(await source.restoredThrough()).toBe(0);
    expect(await target.balance()).toBe(await source.balance());
    expect(await target.audit()).toEqual({ balance: "78.02", ledgerSum: "78.02", entries: 5 });
    expect(await target.chargeStatus("ord_b")).toEqual(await source.chargeStatus("ord_b"));
    expect(await target.entries(0, 100)).toEqual(await source.entries(0, 100));

    // The idempotency keys came along: a retried top-up or charge finds its entry and moves nothing.
    const replay = await target.post({ key: topUpKey("t1"), kind: "top_up", amount: "100.10" });
    expect(replay).toMatchObject({ ok: true, replayed: true });
    expect(
      (await target.post({ key: chargeKey("ord_b"), kind: "order_charge", amount: "1", orderId: "ord_b" })).ok,
    ).toBe(false);
    // And the ledger goes on from where it was.
    const next = await target.post({ key: topUpKey("t3"), kind: "top_up", amount: "1.99" });
    expect(next).toMatchObject({
      ok: true,
      replayed: false,
      entry: { seq: exported.entries.at(-1)!.seq + 1, balanceAfter: "80.01" },
    });
    expect(await target.audit()).toEqual({ balance: "80.01", ledgerSum: "80.01", entries: 6 });
  });

  it("exports and restores an empty wallet as zero", async () => {
    const exported = (await walletNamed("backup-empty:EUR").exportLedger("backup-empty", "EUR")) as LedgerExport;
    expect(exported).toMatchObject({ balance: "0", entries: [] });
    // It writes nothing: no entry, and no record of a restore.
    expect(await walletNamed("backup-empty-target:EUR").restoreLedger(exported)).toEqual({
      ok: true,
      entries: 0,
      balance: "0",
      replayed: false,
      wrote: false,
    });
    expect(await walletNamed("backup-empty-target:EUR").restoredThrough()).toBe(0);
  });

  it("refuses a wallet that has entries, and writes nothing", async () => {
    const exported = (await (await busyWallet("backup-twice:USD")).exportLedger("backup-twice", "USD")) as LedgerExport;
    const target = walletNamed("backup-occupied:USD");
    await target.post({ key: topUpKey("x"), kind: "top_up", amount: "5" });
    expect(await target.restoreLedger(exported)).toEqual({
      ok: false,
      code: "wallet_not_empty",
      reason: "the wallet has 1 entries",
    });
    expect(await target.audit()).toEqual({ balance: "5", ledgerSum: "5", entries: 1 });
  });

  it("refuses entries that do not chain from zero, and writes nothing", async () => {
    const exported = (await (
      await busyWallet("backup-tamper:USD")
    ).exportLedger("backup-tamper", "USD")) as LedgerExport;
    const tampered: Array<[string, (backup: LedgerExport) => void, string]> = [
      [
        "an amount changed",
        (b) => (b.entries[1]!.amount = "2000.2"),
        "entries[1]: balanceAfter 100.3 is not 100.1 + 2000.2",
      ],
      ["an entry dropped", (b) => b.entries.splice(2, 1), "entries[2]: balanceAfter 78.08 is not 100.3 + 11.11"],
      ["the stated balance", (b) => (b.balance = "1000"), "balance 1000 is not the entries' last balance 78.02"],
      ["seqs out of order", (b) => (b.entries[3]!.seq = 1), "entries[3]: seq 1 does not follow 3"],
      ["a key twice", (b) => (b.entries[4]!.key = b.entries[0]!.key), `entries[4]: key "top-up:t1" appears twice`],
      [
        "a balance below zero",
        (b) => {
          b.entries = [{ ...b.entries[0]!, amount: "-1", balanceAfter: "-1" }];
          b.balance = "-1";
        },
        "entries[0]: balanceAfter -1 is below zero",
      ],
      [
        "an amount that is not a decimal",
        (b) => (b.entries[0]!.amount = "ten"),
        "entries[0]: amount or balanceAfter is not a decimal",
      ],
    ];
    for (const [what, change, reason] of tampered) {
      const copy = structuredClone(exported);
      change(copy);
      expect(brokenChain(copy), what).toBe(reason);
      const target = walletNamed(`backup-tampered:${what}`);
      expect(await target.restoreLedger(copy), what).toEqual({ ok: false, code: "ledger_chain_broken", reason });
      expect(await target.audit(), what).toEqual({ balance: "0", ledgerSum: "0", entries: 0 });
    }
  });
});

/** This deployment as a signature names it (vitest.config.ts: the sandbox, with wrangler.toml's DEPLOYMENT). */
const HERE = { deployment: "order-service", mode: "sandbox" as const };
/** The LEDGER_EXPORT_KEY binding of vitest.config.ts. */
const EXPORT_KEY = "test-ledger-export-key";

/** The export as this deployment signs it (GET …/export adds the signature). */
async function signed<T extends LedgerExport>(backup: T): Promise<T & { signature: string }> {
  return { ...backup, signature: await signExport(backup, EXPORT_KEY, HERE) };
}

/** A v1 signature: what exports carried before LEDGER_EXPORT_KEY (a key derived from ADMIN_TOKEN). */
async function signedV1(backup: LedgerExport, token = ADMIN_TOKEN): Promise<string> {
  const bytes = new TextEncoder().encode(
    JSON.stringify([
      backup.format,
      backup.clientId,
      backup.currency,
      backup.exportedAt,
      backup.balance,
      backup.entries.map((e) => [e.seq, e.key, e.kind, e.amount, e.balanceAfter, e.orderId, e.reason, e.createdAt]),
      backup.voids.map((v) => [v.orderId, v.voidedAt, v.reason]),
    ]),
  );
  const mac = await crypto.subtle.sign("HMAC", await derivedHmacKey(token, "ledger-export-v1"), bytes);
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

describe("GET …/export and POST …/restore (operator API)", () => {
  afterEach(() => clearFaults());

  it("takes only an export this deployment signed, unchanged: a made-up or edited ledger writes nothing", async () => {
    await addClient("bk-forged", {});
    const entry = {
      seq: 1,
      key: "topup:made-up",
      kind: "top_up" as const,
      amount: "1000000",
      balanceAfter: "1000000",
      orderId: null,
      reason: "made up",
      createdAt: Date.now(),
      note: null,
    };
    const madeUp: LedgerExport = {
      format: LEDGER_EXPORT_FORMAT,
      deployment: HERE.deployment,
      mode: HERE.mode,
      clientId: "bk-forged",
      currency: "USD",
      exportedAt: Date.now(),
      balance: "1000000",
      entries: [entry],
      voids: [],
    };
    const reason =
      "the export's signature does not hold: only an export this deployment produced, in this mode, unchanged, is restored";
    const v2Under = async (secret: string, signer = HERE) => ({
      ...madeUp,
      signature: await signExport(madeUp, secret, signer),
    });
    for (const [what, body] of [
      ["no signature", madeUp],
      ["a signature of nothing", { ...madeUp, signature: "v2,AAAA" }],
      ["signed under another key", await v2Under("another-deployment-export-key")],
      // Holding the break-glass token is not holding the export key.
      ["signed under ADMIN_TOKEN", await v2Under(ADMIN_TOKEN)],
      ["signed by another deployment", await v2Under(EXPORT_KEY, { ...HERE, deployment: "order-service-copy" })],
      ["signed in the other mode", await v2Under(EXPORT_KEY, { ...HERE, mode: "live" as never })],
      ["a v2 export with a v1 signature", { ...madeUp, signature: await signedV1(madeUp) }],
      [
        "a signed export edited after",
        {
          ...(await signed(madeUp)),
          balance: "2000000",
          entries: [{ ...entry, amount: "2000000", balanceAfter: "2000000" }],
        },
      ],
    ] as const) {
      const refused = await admin("POST", "/admin/wallets/bk-forged/USD/restore", body);
      expect(refused.status, what).toBe(400);
      expect(refused.body.code, what).toBe("invalid_request_body");
      if (what !== "no signature") expect(refused.body.details.reason, what).toBe(reason);
    }
    expect(await walletNamed("bk-forged:USD").audit()).toEqual({ balance: "0", ledgerSum: "0", entries: 0 });
    expect((await auditActions()).filter((action) => action === "wallet.restore")).toEqual([]);
  });

  it("takes a v1 export (signed under ADMIN_TOKEN) until the overlap ends, and no other v1 signature", async () => {
    await addClient("bk-v1", {});
    const v1: LedgerExport = {
      format: LEDGER_EXPORT_FORMAT_V1,
      clientId: "bk-v1",
      currency: "USD",
      exportedAt: Date.now(),
      balance: "12.5",
      entries: [
        {
          seq: 1,
          key: topUpKey("v1-opening"),
          kind: "top_up",
          amount: "12.5",
          balanceAfter: "12.5",
          orderId: null,
          reason: "bank",
          createdAt: Date.now() - 1000,
          note: null,
        },
      ],
      voids: [],
    };
    const keys = { exportKeys: [EXPORT_KEY], adminTokens: [ADMIN_TOKEN] };
    expect(await exportSignedBy(v1, await signedV1(v1), keys, HERE)).toBe(true);
    expect(await exportSignedBy(v1, await signedV1(v1, "another-admin-token"), keys, HERE)).toBe(false);
    // The overlap: ADMIN_TOKEN (and a rotation's previous one in its window) until V1_EXPORTS_UNTIL, then none.
    const tokens = { ADMIN_TOKEN, ADMIN_TOKEN_PREVIOUS: undefined, ADMIN_TOKEN_PREVIOUS_UNTIL: undefined };
    expect(v1Tokens(tokens, V1_EXPORTS_UNTIL - 1)).toEqual([ADMIN_TOKEN]);
    expect(v1Tokens(tokens, V1_EXPORTS_UNTIL)).toEqual([]);
    expect(await exportSignedBy(v1, await signedV1(v1), { ...keys, adminTokens: [] }, HERE)).toBe(false);
    expect(Date.now()).toBeLessThan(V1_EXPORTS_UNTIL);
    const restored = await admin("POST", "/admin/wallets/bk-v1/USD/restore", { ...v1, signature: await signedV1(v1) });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.data).toMatchObject({ entries: 1, balance: "12.5", replayed: false });
  });

  it("exports a wallet and restores it into the same wallet of a client in an empty deployment, with the same balance", async () => {
    await addClient("bk-live", {});
    const post = (path: string, body: unknown) => admin("POST", `/admin/wallets/bk-live/USD/${path}`, body);
    expect((await post("top-ups", { amount: "100.10", idempotencyKey: "t1", reason: "bank" })).status).toBe(200);
    expect((await post("adjustments", { amount: "-0.07", idempotencyKey: "a1", reason: "fee" })).status).toBe(200);
    const exported = await admin("GET", "/admin/wallets/bk-live/USD/export");
    expect(exported.status).toBe(200);
    await expectConforms("GET", "/admin/wallets/{clientId}/{currency}/export", exported);
    expect(exported.body.data).toMatchObject({
      format: LEDGER_EXPORT_FORMAT,
      clientId: "bk-live",
      currency: "USD",
      balance: "100.03",
    });

    // A new deployment's wallet for the client has no entry; here another client stands in for it. An
    // export is restored only into the wallet it names...
    await addClient("bk-new", {});
    const relabelled = await admin("POST", "/admin/wallets/bk-new/USD/restore", exported.body.data);
    expect(relabelled.status).toBe(400);
    expect(relabelled.body.details.reason).toBe("the export is of wallet bk-live/USD, not bk-new/USD");
    // ...so the stand-in gets the export under its own name, signed as that deployment (with the same
    // ADMIN_TOKEN) would have signed it.
    const data = await signed({ ...exported.body.data, clientId: "bk-new" });
    const restored = await admin("POST", "/admin/wallets/bk-new/USD/restore", data);
    expect(restored.status).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/restore", restored);
    expect(restored.body).toEqual({
      message: "Ledger restored",
      data: { clientId: "bk-new", currency: "USD", entries: 2, balance: "100.03", replayed: false, request: null },
    });
    expect((await admin("GET", "/admin/wallets/bk-new/USD")).body.data.balance).toBe(100.03);
    const again = await admin("POST", "/admin/wallets/bk-new/USD/restore", data);
    expect(again.body).toEqual({
      message: "Ledger already restored",
      data: { clientId: "bk-new", currency: "USD", entries: 2, balance: "100.03", replayed: true, request: null },
    });
    const restoreRows = async () =>
      (
        await env.DB.prepare(
          `SELECT target FROM audit_log WHERE action = 'wallet.restore' AND target LIKE 'wallet:bk-%'`,
        ).all<{
          target: string;
        }>()
      ).results.map((row) => row.target);
    expect(await restoreRows()).toEqual(["wallet:bk-v1:USD", "wallet:bk-new:USD"]);
    // The wallet's own export posted back into it: it wrote those entries itself, so nothing is restored and
    // nothing audited.
    const own = await admin("POST", "/admin/wallets/bk-live/USD/restore", exported.body.data);
    expect(own.status).toBe(409);
    expect(own.body.code).toBe("wallet_not_empty");
    expect(await restoreRows()).toEqual(["wallet:bk-v1:USD", "wallet:bk-new:USD"]);

    const occupied = await admin(
      "POST",
      "/admin/wallets/bk-live/USD/restore",
      await signed({ ...exported.body.data, entries: [exported.body.data.entries[0]], balance: "100.1" }),
    );
    expect(occupied.status).toBe(409);
    expect(occupied.body).toEqual({
      message: "Wallet already has ledger entries",
      code: "wallet_not_empty",
      details: { clientId: "bk-live", currency: "USD", reason: "the wallet has 2 entries" },
    });
    const broken = await admin(
      "POST",
      "/admin/wallets/bk-new/EUR/restore",
      await signed({ ...exported.body.data, clientId: "bk-new", currency: "EUR", balance: "5" }),
    );
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe("ledger_chain_broken");
    // Refused before anything is written: the wallet is not even registered.
    expect((await admin("GET", "/admin/wallets/bk-new/EUR/export")).body.code).toBe("wallet_unknown");
  });

  for (const seam of Object.values(LEDGER_BACKUP_SEAMS)) {
    for (const when of ["before", "after"] as const) {
      it(`a restore failed at ${seam} (${when} the call) is sent again: one restore, one audit row, the same balance`, async () => {
        const clientId = `bk-${seam.split(".").at(-1)}-${when}`;
        await addClient(clientId, {});
        const source = await busyWallet(`${clientId}-src:USD`);
        const data = await signed((await source.exportLedger(clientId, "USD")) as LedgerExport);
        armFault(seam, { when });
        const failed = await admin("POST", `/admin/wallets/${clientId}/USD/restore`, data);
        expect(firedFaults()).toEqual([`${seam}:${when}`]);
        expect(failed.status).toBe(500);
        expect(failed.body.details.reason).toBe(
          "the restore may or may not have been written; send the same export again",
        );
        clearFaults();
        const done = await admin("POST", `/admin/wallets/${clientId}/USD/restore`, data);
        expect(done.status).toBe(200);
        expect(done.body.data).toMatchObject({ clientId, currency: "USD", entries: 5, balance: "78.02" });
        const rows = await env.DB.prepare(
          `SELECT COUNT(*) AS n FROM audit_log WHERE action = 'wallet.restore' AND target = ?1`,
        )
          .bind(`wallet:${clientId}:USD`)
          .first<{ n: number }>();
        expect(rows!.n).toBe(1);
        expect(await walletNamed(`${clientId}:USD`).audit()).toEqual({
          balance: "78.02",
          ledgerSum: "78.02",
          entries: 5,
        });
        expect((await admin("GET", `/admin/wallets/${clientId}/USD`)).body.data.balance).toBe(78.02);
      });
    }
  }
  it("audits a restore as a money movement with its total", async () => {
    await addClient("bk-total", {});
    const source = await busyWallet("bk-total-src:USD");
    const data = await signed((await source.exportLedger("bk-total", "USD")) as LedgerExport);
    expect((await admin("POST", "/admin/wallets/bk-total/USD/restore", data)).status).toBe(200);
    const row = await env.DB.prepare(`SELECT details FROM audit_log WHERE action = 'wallet.restore' AND target = ?1`)
      .bind("wallet:bk-total:USD")
      .first<{ details: string }>();
    const credits = data.entries.filter((e) => !e.amount.startsWith("-")).map((e) => Number(e.amount));
    expect(JSON.parse(row!.details)).toMatchObject({
      amount: "78.02",
      balance: "78.02",
      entries: 5,
      exportedAt: data.exportedAt,
    });
    expect(Number(JSON.parse(row!.details).credits) + Number(JSON.parse(row!.details).debits)).toBeCloseTo(78.02, 6);
    expect(credits.length).toBeGreaterThan(0);
  });
});
