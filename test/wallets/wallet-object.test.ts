/**
 * The wallet Durable Object (src/wallets/wallet-object.ts): an append-only ledger, idempotent postings,
 * debits that never take the balance below zero, and a balance that is always the sum of the ledger.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Money } from "../../src/pricing/money";
import { decideDebit, ledgerSum, walletName } from "../../src/wallets/ledger";
import { chargeKey, voidKey } from "../../src/wallets/ledger-keys";
import type { PostingResult, WalletObject } from "../../src/wallets/wallet-object";
import { balanceOf, ledgerSumOf, wallet } from "../helpers";
import { uid } from "../order-helpers";

function freshWallet(currency = "USD") {
  const clientId = uid("w");
  return { clientId, currency, stub: wallet(clientId, currency) };
}

function expectOkPosting(result: PostingResult) {
  if (!result.ok) throw new Error(`posting refused: ${JSON.stringify(result)}`);
  return result;
}

describe("postings", () => {
  it("a new wallet has balance 0 and no entries", async () => {
    const w = freshWallet();
    expect(await w.stub.balance()).toBe("0");
    expect(await w.stub.entries()).toEqual([]);
  });

  it("credits and debits move the balance; each entry records its signed amount and the balance after it", async () => {
    const w = freshWallet();
    const a = expectOkPosting(await w.stub.post({ key: "k1", kind: "top_up", amount: "100", reason: "first" }));
    expect(a).toMatchObject({
      replayed: false,
      entry: { seq: 1, key: "k1", kind: "top_up", amount: "100", balanceAfter: "100", reason: "first", orderId: null },
    });
    const b = expectOkPosting(
      await w.stub.post({ key: "k2", kind: "order_charge", amount: "21.74", orderId: "ord_x" }),
    );
    expect(b.entry).toMatchObject({ seq: 2, amount: "-21.74", balanceAfter: "78.26", orderId: "ord_x" });
    const c = expectOkPosting(await w.stub.post({ key: "k3", kind: "order_refund", amount: "10.87" }));
    expect(c.entry).toMatchObject({ amount: "10.87", balanceAfter: "89.13" });
    expect(await w.stub.balance()).toBe("89.13");
    expect(await ledgerSumOf(w.clientId, w.currency)).toBe("89.13");
    expect(typeof c.entry.createdAt).toBe("number");
  });

  it("exact decimals: 0.1 + 0.2 − 0.3 is 0", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "a", kind: "top_up", amount: "0.1" });
    await w.stub.post({ key: "b", kind: "top_up", amount: "0.2" });
    await w.stub.post({ key: "c", kind: "order_charge", amount: "0.3" });
    expect(await w.stub.balance()).toBe("0");
  });

  it("a debit larger than the balance is refused with the balance, and writes nothing", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "10" });
    const refused = await w.stub.post({ key: "d", kind: "order_charge", amount: "10.01" });
    expect(refused).toEqual({ ok: false, code: "insufficient_funds", balance: "10" });
    expect(await w.stub.entries()).toHaveLength(1);
    expect(await w.stub.entry("d")).toBeNull();
    // the exact balance can be spent
    expectOkPosting(await w.stub.post({ key: "d", kind: "order_charge", amount: "10" }));
    expect(await w.stub.balance()).toBe("0");
  });

  it.each([["-1"], ["abc"], ["NaN"], ["Infinity"]])(
    "amount %s is refused (throws) and writes nothing",
    async (amount) => {
      const w = freshWallet();
      // Called inside the object (an error thrown across RPC is reported by the pool as uncaught).
      await runInDurableObject(w.stub, async (instance: WalletObject) => {
        await expect(instance.post({ key: "x", kind: "top_up", amount })).rejects.toThrow();
      });
      expect(await w.stub.entries()).toEqual([]);
    },
  );

  it("wallets are per (client, currency)", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "50" });
    expect(await balanceOf(w.clientId, "EUR")).toBe("0");
    expect(await balanceOf(`${w.clientId}x`, "USD")).toBe("0");
    expect(walletName("a", "USD")).not.toBe(walletName("a", "EUR"));
  });
});

describe("idempotent keys", () => {
  it("the same key and posting again returns the first entry (replayed), and writes nothing", async () => {
    const w = freshWallet();
    const first = expectOkPosting(await w.stub.post({ key: "k", kind: "top_up", amount: "25.5" }));
    const again = expectOkPosting(await w.stub.post({ key: "k", kind: "top_up", amount: "25.50" }));
    expect(again.replayed).toBe(true);
    expect(again.entry).toEqual(first.entry);
    expect(await w.stub.balance()).toBe("25.5");
    expect(await w.stub.entries()).toHaveLength(1);
  });

  it("a replayed debit stays a replay even when the balance could no longer pay it", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "10" });
    expectOkPosting(await w.stub.post({ key: "charge", kind: "order_charge", amount: "10" }));
    const again = expectOkPosting(await w.stub.post({ key: "charge", kind: "order_charge", amount: "10" }));
    expect(again.replayed).toBe(true);
    expect(await w.stub.balance()).toBe("0");
  });

  it("the same key with another amount → idempotency_conflict with the first entry; nothing written", async () => {
    const w = freshWallet();
    const first = expectOkPosting(await w.stub.post({ key: "k", kind: "top_up", amount: "10" }));
    const conflict = await w.stub.post({ key: "k", kind: "top_up", amount: "11" });
    expect(conflict).toEqual({ ok: false, code: "idempotency_conflict", entry: first.entry });
    expect(await w.stub.balance()).toBe("10");
    expect(await w.stub.entries()).toHaveLength(1);
  });

  it("the same key with another kind → idempotency_conflict", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    await w.stub.post({ key: "k", kind: "top_up", amount: "10" });
    const conflict = await w.stub.post({ key: "k", kind: "order_charge", amount: "10" });
    expect(conflict.ok).toBe(false);
    expect(!conflict.ok && conflict.code).toBe("idempotency_conflict");
    expect(await w.stub.balance()).toBe("110");
  });

  it("concurrent postings with one key write one entry", async () => {
    const w = freshWallet();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => w.stub.post({ key: "once", kind: "top_up", amount: "7" })),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    expect(results.filter((result) => result.ok && !result.replayed)).toHaveLength(1);
    expect(await w.stub.balance()).toBe("7");
  });
});

describe("voidOrder: the void of an expired order is final", () => {
  it("credits back what the order's charge took, once; no entry at all when nothing was charged", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    const none = await w.stub.voidOrder("ord_none", "expired");
    expect(none).toMatchObject({ orderId: "ord_none", credit: null });
    await w.stub.post({ key: chargeKey("ord_1"), kind: "order_charge", amount: "30", orderId: "ord_1" });
    const voided = await w.stub.voidOrder("ord_1", "expired");
    expect(voided.credit).toMatchObject({
      key: voidKey("ord_1"),
      kind: "order_void",
      amount: "30",
      orderId: "ord_1",
      balanceAfter: "100",
    });
    expect(await w.stub.voidOrder("ord_1", "expired again")).toEqual(voided);
    expect(await w.stub.balance()).toBe("100");
    expect(await w.stub.entries()).toHaveLength(3);
    expect(await w.stub.audit()).toEqual({ balance: "100", ledgerSum: "100", entries: 3 });
  });

  it("a charge that reaches the wallet after the void is refused and writes nothing", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "100" });
    const voided = await w.stub.voidOrder("ord_late", "expired");
    const late = await w.stub.post({
      key: chargeKey("ord_late"),
      kind: "order_charge",
      amount: "30",
      orderId: "ord_late",
    });
    expect(late).toEqual({ ok: false, code: "order_voided", voidedAt: voided.voidedAt });
    expect(await w.stub.entry(chargeKey("ord_late"))).toBeNull();
    expect(await w.stub.balance()).toBe("100");
    // Other orders are charged as before.
    expectOkPosting(
      await w.stub.post({ key: chargeKey("ord_other"), kind: "order_charge", amount: "30", orderId: "ord_other" }),
    );
    expect(await w.stub.audit()).toMatchObject({ balance: "70", ledgerSum: "70" });
  });
});

// That the ledger is append-only and its keys unique is the schema's guarantee: test/wallets/wallet-store.test.ts.
describe("ledger entries", () => {
  it("entries page by seq", async () => {
    const w = freshWallet();
    for (let i = 1; i <= 5; i += 1) await w.stub.post({ key: `k${i}`, kind: "top_up", amount: String(i) });
    expect((await w.stub.entries(0, 2)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await w.stub.entries(2, 2)).map((e) => e.seq)).toEqual([3, 4]);
    expect((await w.stub.entries(4, 10)).map((e) => e.seq)).toEqual([5]);
    expect(await w.stub.entries(5)).toEqual([]);
  });
});

describe("balance == sum of the ledger, under concurrent debits", () => {
  it("100 concurrent debits of 1 against 50.50: exactly 50 succeed, the balance ends at 0.50, never below zero", async () => {
    const w = freshWallet();
    await w.stub.post({ key: "t", kind: "top_up", amount: "50.50" });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => w.stub.post({ key: `d${i}`, kind: "order_charge", amount: "1" })),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(50);
    expect(results.filter((result) => !result.ok && result.code === "insufficient_funds")).toHaveLength(50);
    expect(await w.stub.balance()).toBe("0.5");
    expect(await ledgerSumOf(w.clientId, w.currency)).toBe("0.5");
    const entries = await w.stub.entries(0, 1000);
    let running = new Money(0);
    for (const entry of entries) {
      running = running.plus(entry.amount);
      expect(entry.balanceAfter).toBe(running.toFixed());
      expect(running.isNegative()).toBe(false);
    }
  });

  it("a random mix of credits and debits keeps balance == ledger sum == running balanceAfter", async () => {
    const w = freshWallet();
    const postings = Array.from({ length: 60 }, (_, i) => ({
      key: `m${i}`,
      kind: (i % 3 === 0 ? "top_up" : "order_charge") as "top_up" | "order_charge",
      amount: (((i * 7919) % 5000) / 100 + 0.01).toFixed(2),
    }));
    await Promise.all(postings.map((posting) => w.stub.post(posting)));
    const entries = await w.stub.entries(0, 1000);
    expect(ledgerSum(entries).toFixed()).toBe(await w.stub.balance());
    expect(entries.at(-1)?.balanceAfter ?? "0").toBe(await w.stub.balance());
  });
});

describe("ledger helpers (pure)", () => {
  it("decideDebit never allows a balance below zero", () => {
    expect(decideDebit(new Money("10"), new Money("10"))).toMatchObject({ ok: true });
    const ok = decideDebit(new Money("10"), new Money("3.5"));
    expect(ok.ok && ok.balanceAfter.toFixed()).toBe("6.5");
    expect(decideDebit(new Money("10"), new Money("10.01"))).toMatchObject({ ok: false });
    expect(() => decideDebit(new Money("10"), new Money("-1"))).toThrow();
  });

  it("ledgerSum", () => {
    expect(ledgerSum([{ amount: "100" }, { amount: "-21.74" }, { amount: "0.01" }]).toFixed()).toBe("78.27");
    expect(ledgerSum([]).toFixed()).toBe("0");
  });

  it("the wallet object of a (client, currency) is stable", () => {
    expect(env.WALLETS.idFromName(walletName("demo", "USD")).toString()).toBe(
      env.WALLETS.idFromName(walletName("demo", "USD")).toString(),
    );
  });
});
