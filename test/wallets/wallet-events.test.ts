/**
 * The wallet's events: the low-balance alert (PUT/DELETE /wallets/{currency}/alert, shown in GET /wallets),
 * wallet.low once per downward crossing and at most once per 24 h, decided in the wallet's transaction;
 * wallet.funded on an operator's credit with its note and never its reason. Each event waits in the
 * wallet's outbox until its alarm has handed it to the client's books: a failure there loses nothing and
 * duplicates nothing.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { armFault, clearFaults, firedFaults, type FaultWhen } from "../../src/kernel/faults";
import { WALLET_EVENT_SEAMS } from "../../src/wallets/seams";
import { admin } from "../admin-helpers";
import { call, seedDemo, wallet } from "../helpers";
import { expectError, freshClient } from "../order-helpers";

beforeAll(seedDemo);
afterEach(clearFaults);

const alert = (key: string, threshold: unknown, currency = "USD") =>
  call("PUT", `/wallets/${currency}/alert`, { key, body: { threshold } });

async function debit(clientId: string, amount: string): Promise<void> {
  const key = `debit:${crypto.randomUUID()}`;
  const result = await wallet(clientId, "USD").post({ key, kind: "adjustment", amount: `-${amount}`, reason: "t" });
  expect(result.ok).toBe(true);
}

async function credit(clientId: string, amount: string): Promise<void> {
  const key = `credit:${crypto.randomUUID()}`;
  expect((await wallet(clientId, "USD").post({ key, kind: "top_up", amount, reason: "t" })).ok).toBe(true);
}

/**
 * Runs the wallet's alarm (its hand-over to the books), waits until its outbox is empty (an alarm that fired
 * on its own may still be handing over), then lists the client's events of `type`.
 */
async function eventsOf(clientId: string, key: string, type: string): Promise<any[]> {
  await runDurableObjectAlarm(wallet(clientId, "USD"));
  await vi.waitFor(
    async () =>
      expect(
        await runInDurableObject(
          wallet(clientId, "USD"),
          (_instance, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM event_outbox`).one().n,
        ),
      ).toBe(0),
    { timeout: 10_000, interval: 50 },
  );
  return (await call("GET", `/events?type=${type}`, { key })).body.data.events;
}

describe("the low-balance alert", () => {
  it("is set in the currency's precision, shown in GET /wallets, and cleared", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const set = await alert(key, "100.50");
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toEqual({ currency: "USD", threshold: "100.5" });
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([
      { currency: "USD", balance: 1000, lowBalanceThreshold: "100.5" },
    ]);
    for (const bad of ["100.001", "-5", "1e3", "abc", 100])
      expect((await alert(key, bad)).body.code, String(bad)).toBe("invalid_request_body");
    expectError(await alert(key, "10", "EUR"), 404, "Wallet not found", "wallet_unknown");
    expect((await call("GET", "/wallets", { key })).body.data.wallets[0].lowBalanceThreshold).toBe("100.5");
    expect((await call("DELETE", "/wallets/USD/alert", { key })).body.data).toEqual({
      currency: "USD",
      threshold: null,
    });
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 1000 }]);
    expect((await alert(key, "5")).status).toBe(200);
    expect((await alert(key, null)).body.data.threshold).toBeNull();
  });

  it("fires once as two concurrent charges cross it, not again below, and re-arms above", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    await alert(key, "100");
    await Promise.all([debit(id, "460"), debit(id, "460")]);
    const low = await eventsOf(id, key, "wallet.low");
    expect(low).toEqual([
      {
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: "wallet.low",
        createdAt: expect.any(Number),
        data: { currency: "USD", balance: "80", threshold: "100" },
        livemode: false,
      },
    ]);
    await debit(id, "10");
    expect(await eventsOf(id, key, "wallet.low")).toHaveLength(1);
    // Back above re-arms; a second crossing within 24 h does not fire.
    await credit(id, "100");
    await debit(id, "100");
    expect(await eventsOf(id, key, "wallet.low")).toHaveLength(1);
    // A day later, up and down again fires.
    await runInDurableObject(wallet(id, "USD"), (_instance, state) =>
      state.storage.sql.exec(`UPDATE balance_alert SET fired_at = fired_at - 86400001`),
    );
    await credit(id, "100");
    await debit(id, "100");
    const again = await eventsOf(id, key, "wallet.low");
    expect(again.map((event) => event.data.balance)).toEqual(["70", "80"]);
  });
});

describe("wallet.funded", () => {
  it("announces an operator's top-up with its note, never its reason", async () => {
    const { id, key } = await freshClient({ USD: "10" });
    const topUp = await admin("POST", `/admin/wallets/${id}/USD/top-ups`, {
      amount: "250.25",
      idempotencyKey: `funded-${id}`,
      reason: "internal: wire 8812 from the reseller's bank",
      note: "Invoice 2026-001 paid",
    });
    expect(topUp.status, JSON.stringify(topUp.body)).toBe(200);
    const funded = await eventsOf(id, key, "wallet.funded");
    expect(funded).toEqual([
      {
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: "wallet.funded",
        createdAt: expect.any(Number),
        data: { currency: "USD", amount: "250.25", balance: "260.25", note: "Invoice 2026-001 paid" },
        livemode: false,
      },
    ]);
    expect(JSON.stringify(funded)).not.toContain("wire 8812");
    // The same top-up again is a replay: nothing new.
    await admin("POST", `/admin/wallets/${id}/USD/top-ups`, {
      amount: "250.25",
      idempotencyKey: `funded-${id}`,
      reason: "internal: wire 8812 from the reseller's bank",
      note: "Invoice 2026-001 paid",
    });
    expect(await eventsOf(id, key, "wallet.funded")).toHaveLength(1);
  });

  it.each(["before", "after"] as FaultWhen[])(
    "loses and duplicates nothing when the hand-over to the books fails %s its call",
    async (when) => {
      const { id, key } = await freshClient({ USD: "1000" });
      await alert(key, "500");
      // Armed before the change: the alarm its transaction sets may run at once, by itself.
      armFault(WALLET_EVENT_SEAMS.hand, { when });
      await debit(id, "600");
      await runDurableObjectAlarm(wallet(id, "USD"));
      for (let wait = 0; wait < 100 && firedFaults().length === 0; wait += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(firedFaults()).toEqual([`${WALLET_EVENT_SEAMS.hand}:${when}`]);
      clearFaults();
      const waiting = await runInDurableObject(wallet(id, "USD"), (_instance, state) =>
        state.storage.sql.exec(`SELECT count(*) AS n FROM event_outbox`).one(),
      );
      expect(waiting).toEqual({ n: 1 });
      const low = await eventsOf(id, key, "wallet.low");
      expect(low).toHaveLength(1);
      expect(await eventsOf(id, key, "wallet.low")).toEqual(low);
      const left = await runInDurableObject(wallet(id, "USD"), (_instance, state) =>
        state.storage.sql.exec(`SELECT count(*) AS n FROM event_outbox`).one(),
      );
      expect(left).toEqual({ n: 0 });
    },
  );
});
