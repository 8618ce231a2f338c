/**
 * A void is final in the wallet (docs/guarantees.md): voiding an order writes its own entry under the
 * order's void key, and a charge for that order that arrives afterwards is refused and writes nothing.
 */
import { describe, expect, it } from "vitest";
import { chargeKey, voidKey } from "../../src/wallets/ledger-keys";
import { ledgerSumOf, wallet } from "../helpers";
import { uid } from "../order-helpers";

function freshWallet() {
  const clientId = uid("v");
  return { clientId, stub: wallet(clientId, "USD") };
}

describe("voidOrder", () => {
  it("credits back the order's charge once, under the void key; a second void returns the first entry", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    await w.stub.post({ key: chargeKey("ord_1"), kind: "order_charge", amount: "30", orderId: "ord_1" });
    const entry = await w.stub.voidOrder("ord_1", "expired");
    expect(entry).toMatchObject({ key: voidKey("ord_1"), kind: "order_void", amount: "30", orderId: "ord_1", balanceAfter: "100", reason: "expired" });
    expect(await w.stub.voidOrder("ord_1", "expired again")).toEqual(entry);
    expect(await w.stub.balance()).toBe("100");
    expect(await w.stub.entries()).toHaveLength(3);
  });

  it("an order never charged gets a void of 0, and a charge that arrives later is refused (order_voided), writing nothing", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    const entry = await w.stub.voidOrder("ord_2", "expired");
    expect(entry).toMatchObject({ key: voidKey("ord_2"), kind: "order_void", amount: "0", orderId: "ord_2", balanceAfter: "100" });
    const late = await w.stub.post({ key: chargeKey("ord_2"), kind: "order_charge", amount: "30", orderId: "ord_2" });
    expect(late).toMatchObject({ ok: false, code: "order_voided", entry: { key: voidKey("ord_2") } });
    // refused by the order id alone as well, whatever the key
    const byOrderId = await w.stub.post({ key: "other-key", kind: "order_charge", amount: "30", orderId: "ord_2" });
    expect(byOrderId).toMatchObject({ ok: false, code: "order_voided" });
    expect(await w.stub.entry(chargeKey("ord_2"))).toBeNull();
    expect(await w.stub.balance()).toBe("100");
    expect(await w.stub.entries()).toHaveLength(2);
  });

  it("a replay of a charge that landed before the void is still refused after it (the money stays credited back)", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "50" });
    await w.stub.post({ key: chargeKey("ord_3"), kind: "order_charge", amount: "20", orderId: "ord_3" });
    await w.stub.voidOrder("ord_3", "expired");
    expect(await w.stub.post({ key: chargeKey("ord_3"), kind: "order_charge", amount: "20", orderId: "ord_3" })).toMatchObject({ ok: false, code: "order_voided" });
    expect(await w.stub.balance()).toBe("50");
  });

  it("voids racing charges: every order ends either charged and voided back, or voided and never charged", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "1000" });
    const ids = Array.from({ length: 20 }, (_, i) => `ord_r${i}`);
    await Promise.all(
      ids.flatMap((id) => [w.stub.post({ key: chargeKey(id), kind: "order_charge", amount: "10", orderId: id }), w.stub.voidOrder(id, "expired")]),
    );
    expect(await w.stub.balance()).toBe("1000");
    expect(await ledgerSumOf(w.clientId, "USD")).toBe("1000");
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
