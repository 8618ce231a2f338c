/**
 * A void is final in the wallet (docs/guarantees.md): voiding an order marks it voided beside the ledger
 * (and credits back, under the order's void key, a charge that had landed), and a charge for that order
 * that arrives afterwards is refused and writes nothing. A void that moves no money is no ledger entry.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrateWallet, WALLET_MIGRATIONS } from "../../src/wallets/wallet-store";
import { chargeKey, voidKey } from "../../src/wallets/ledger-keys";
import { ledgerSumOf, wallet } from "../helpers";
import { uid } from "../order-helpers";

function freshWallet() {
  const clientId = uid("v");
  return { clientId, stub: wallet(clientId, "USD") };
}

describe("voidOrder", () => {
  it("credits back the order's charge once, under the void key; a second void returns the first", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    await w.stub.post({ key: chargeKey("ord_1"), kind: "order_charge", amount: "30", orderId: "ord_1" });
    const voided = await w.stub.voidOrder("ord_1", "expired");
    expect(voided.credit).toMatchObject({
      key: voidKey("ord_1"),
      kind: "order_void",
      amount: "30",
      orderId: "ord_1",
      balanceAfter: "100",
      reason: "expired",
    });
    expect(await w.stub.voidOrder("ord_1", "expired again")).toEqual(voided);
    expect(await w.stub.balance()).toBe("100");
    expect(await w.stub.entries()).toHaveLength(3);
  });

  it("an order never charged is marked voided with no ledger entry, and a charge that arrives later is refused (order_voided), writing nothing", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    const voided = await w.stub.voidOrder("ord_2", "expired");
    expect(voided).toEqual({ orderId: "ord_2", voidedAt: expect.any(Number), credit: null });
    expect(await w.stub.entry(voidKey("ord_2"))).toBeNull();
    expect(await w.stub.chargeStatus("ord_2")).toEqual({ status: "voided", voidedAt: voided.voidedAt });
    const late = await w.stub.post({ key: chargeKey("ord_2"), kind: "order_charge", amount: "30", orderId: "ord_2" });
    expect(late).toEqual({ ok: false, code: "order_voided", voidedAt: voided.voidedAt });
    // refused by the order id alone as well, whatever the key
    const byOrderId = await w.stub.post({ key: "other-key", kind: "order_charge", amount: "30", orderId: "ord_2" });
    expect(byOrderId).toMatchObject({ ok: false, code: "order_voided" });
    expect(await w.stub.entry(chargeKey("ord_2"))).toBeNull();
    expect(await w.stub.balance()).toBe("100");
    expect(await w.stub.entries()).toHaveLength(1);
    expect(await w.stub.audit()).toEqual({ balance: "100", ledgerSum: "100", entries: 1 });
  });

  it("a replay of a charge that landed before the void is still refused after it (the money stays credited back)", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "50" });
    await w.stub.post({ key: chargeKey("ord_3"), kind: "order_charge", amount: "20", orderId: "ord_3" });
    await w.stub.voidOrder("ord_3", "expired");
    expect(
      await w.stub.post({ key: chargeKey("ord_3"), kind: "order_charge", amount: "20", orderId: "ord_3" }),
    ).toMatchObject({ ok: false, code: "order_voided" });
    expect(await w.stub.balance()).toBe("50");
  });

  it("voids racing charges: every order ends either charged and voided back, or voided and never charged", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "1000" });
    const ids = Array.from({ length: 20 }, (_, i) => `ord_r${i}`);
    await Promise.all(
      ids.flatMap((id) => [
        w.stub.post({ key: chargeKey(id), kind: "order_charge", amount: "10", orderId: id }),
        w.stub.voidOrder(id, "expired"),
      ]),
    );
    expect(await w.stub.balance()).toBe("1000");
    expect(await ledgerSumOf(w.clientId, "USD")).toBe("1000");
  });
});

describe("chargeStatus: one answer to settle a cut-off confirm", () => {
  it("not charged, charged, then voided: a void is final even where the charge landed before it", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    expect(await w.stub.chargeStatus("ord_s")).toEqual({ status: "not_charged" });
    await w.stub.post({ key: chargeKey("ord_s"), kind: "order_charge", amount: "30", orderId: "ord_s" });
    expect(await w.stub.chargeStatus("ord_s")).toMatchObject({
      status: "charged",
      entry: { key: chargeKey("ord_s"), amount: "-30" },
    });
    await w.stub.voidOrder("ord_s", "expired");
    expect(await w.stub.chargeStatus("ord_s")).toMatchObject({ status: "voided" });
    expect(await w.stub.balance()).toBe("100");
  });
});

describe("voids written into the ledger by an older wallet", () => {
  it("still refuse a late charge, and a void of 0 is left out of the ledger's views (the balance and the sum are unchanged)", async () => {
    const w = freshWallet();
    await runInDurableObject(w.stub, (_instance, state) => {
      // A wallet at schema version 2, as it was before voids moved beside the ledger.
      migrateWallet(
        state.storage,
        WALLET_MIGRATIONS.filter((migration) => migration.version <= 2),
      );
      state.storage.sql.exec(
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at) VALUES
           ('top-up:a', 'top_up', '100', '100', NULL, 'old', 1),
           ('order:ord_z:void', 'order_void', '0', '100', 'ord_z', 'expired', 2),
           ('order:ord_c:charge', 'order_charge', '-40', '60', 'ord_c', NULL, 3),
           ('order:ord_c:void', 'order_void', '40', '100', 'ord_c', 'expired', 4)`,
      );
    });
    expect((await w.stub.entries()).map((entry) => entry.key)).toEqual([
      "top-up:a",
      "order:ord_c:charge",
      "order:ord_c:void",
    ]);
    for (const orderId of ["ord_z", "ord_c"]) {
      expect(await w.stub.post({ key: chargeKey(orderId), kind: "order_charge", amount: "1", orderId })).toMatchObject({
        ok: false,
        code: "order_voided",
        voidedAt: expect.any(Number),
      });
      expect(await w.stub.chargeStatus(orderId)).toMatchObject({ status: "voided" });
    }
    expect(await w.stub.audit()).toMatchObject({ balance: "100", ledgerSum: "100" });
  });
});

describe("audit", () => {
  it("answers the balance, the ledger sum and the number of entries", async () => {
    const w = freshWallet();
    expect(await w.stub.audit()).toEqual({ balance: "0", ledgerSum: "0", entries: 0 });
    await w.stub.post({ key: "t", kind: "top_up", amount: "10.5" });
    await w.stub.post({ key: "c", kind: "order_charge", amount: "0.25" });
    expect(await w.stub.audit()).toEqual({ balance: "10.25", ledgerSum: "10.25", entries: 2 });
  });
});
