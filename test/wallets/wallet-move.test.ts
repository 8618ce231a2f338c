/**
 * Moving a client's wallets to another region (POST /admin/clients/:clientId/region), end to end on local
 * workerd: the move itself, its retries, the orders in flight across it, and the ledger views. Local
 * workerd ignores location hints, so the namespace's `get` is watched (./wallet-openings.ts):
 * the wallet registry is the one place that opens wallet objects, and every opening goes through it.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { Money } from "../../src/pricing/money";
import type { LedgerEntry } from "../../src/wallets/ledger";
import { chargeKey, forwardKey, moveKey, refundKey, voidKey } from "../../src/wallets/ledger-keys";
import { WALLET_MOVE_SEAMS } from "../../src/wallets/seams";
import { admin, auditActions, exportSignature } from "../admin-helpers";
import { call, line, orderStub, seedDemo, wallet } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { watchWalletOpenings } from "./wallet-openings";
import * as orderPage from "../../src/console/pages/order";
import { callPage } from "../console/pages-helpers";
import {
  addCodes,
  backdateExpiry,
  drainTimers,
  holdsOf,
  makeExpiryDue,
  rewriteStoredOrder,
  storedOrder,
  uid,
} from "../order-helpers";

const openings = watchWalletOpenings();

afterEach(() => {
  clearFaults();
});

beforeAll(async () => {
  await seedDemo();
  await addCodes("DEMO-EU-FIXED", "10", 40);
});

const hintsOf = openings.hintsOf;

async function entriesAt(
  clientId: string,
  currency: string,
  generation = 0,
  region: string | null = null,
): Promise<LedgerEntry[]> {
  return wallet(clientId, currency, generation, region).entries(0, 10_000);
}

/** Each wallet's balance equals its ledger sum; answers the sum of the balances. */
async function balancesAcross(clientId: string, currency: string, objects: [number, string | null][]): Promise<string> {
  let total = new Money(0);
  for (const [generation, region] of objects) {
    const audit = await wallet(clientId, currency, generation, region).audit();
    expect(audit.balance, `generation ${generation}`).toBe(audit.ledgerSum);
    total = total.plus(audit.balance);
  }
  return total.toFixed();
}

/** A client without a region and a USD wallet holding `funds`, through the operator API. */
async function newClient(funds = "100"): Promise<{ clientId: string; key: string }> {
  const clientId = uid("mv");
  const created = await admin("POST", "/admin/clients", { id: clientId, name: clientId });
  expect(created.status).toBe(200);
  const topUp = await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
    amount: funds,
    idempotencyKey: `${clientId}-funds`,
    reason: "test",
  });
  expect(topUp.status).toBe(200);
  return { clientId, key: created.body.data.apiKey as string };
}

const moveTo = (clientId: string, region: unknown) => admin("POST", `/admin/clients/${clientId}/region`, { region });
const create = (key: string, productList: unknown[]) =>
  call("POST", "/order/create", { key, body: { productList, wallet: "USD", reference: uid("ref") } });
const confirm = (key: string, orderId: string) => call("PUT", "/order/confirm", { key, body: { orderId } });

describe("moving a client's wallets to another region", () => {
  it("opens a new wallet object with the region's hint, transfers the balance as move_out and move_in under one key, and points the registry at it", async () => {
    const { clientId } = await newClient("100");
    openings.clear();
    const moved = await moveTo(clientId, "apac");
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    await expectConforms("POST", "/admin/clients/{clientId}/region", moved);
    expect(moved.body.data.client.region).toBe("apac");
    expect(moved.body.data.moved).toEqual([
      { currency: "USD", from: { generation: 0, region: null }, to: { generation: 1, region: "apac" }, amount: 100 },
    ]);
    // The new object is opened with the hint, every time; the old one as it was placed (none).
    expect(hintsOf(clientId, "USD", 1, "apac").length).toBeGreaterThan(0);
    expect(new Set(hintsOf(clientId, "USD", 1, "apac"))).toEqual(new Set(["apac"]));
    expect(new Set(hintsOf(clientId, "USD", 0, null))).toEqual(new Set([undefined]));
    const key = moveKey(clientId, "USD", 1);
    const out = (await entriesAt(clientId, "USD")).filter((entry) => entry.key === key);
    const into = (await entriesAt(clientId, "USD", 1, "apac")).filter((entry) => entry.key === key);
    expect(out).toMatchObject([{ kind: "move_out", amount: "-100", balanceAfter: "0" }]);
    expect(into).toMatchObject([{ kind: "move_in", amount: "100", balanceAfter: "100" }]);
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("100");
    const row = await env.DB.prepare(`SELECT region, generation, moving_to, previous FROM wallets WHERE client_id = ?1`)
      .bind(clientId)
      .first();
    expect(row).toEqual({
      region: "apac",
      generation: 1,
      moving_to: null,
      previous: JSON.stringify([{ generation: 0, region: null }]),
    });
    // Every route that shows the wallet reads the new object.
    expect((await admin("GET", `/admin/wallets/${clientId}/USD`)).body.data.balance).toBe(100);
    expect((await admin("GET", `/admin/clients/${clientId}`)).body.data.wallets).toEqual([
      { currency: "USD", balance: 100 },
    ]);
  });

  it("the low-balance threshold and the Needs attention list read a moved wallet at its new object", async () => {
    const { clientId } = await newClient("100");
    await moveTo(clientId, "apac");
    const set = await admin("PUT", `/admin/wallets/${clientId}/USD/low-balance-threshold`, { threshold: "100.01" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toMatchObject({ threshold: 100.01, balance: 100 });
    const attention = await admin("GET", "/admin/attention");
    expect(attention.status, JSON.stringify(attention.body)).toBe(200);
    const listed = attention.body.data.lowBalance.filter((row: { clientId: string }) => row.clientId === clientId);
    expect(listed).toEqual([{ clientId, currency: "USD", threshold: 100.01, balance: 100 }]);
  });

  it("moves nothing when sent again, audits once, and moves again (to a third object) for another region", async () => {
    const { clientId } = await newClient("40");
    expect((await moveTo(clientId, "apac")).body.data.moved).toHaveLength(1);
    const again = await moveTo(clientId, "apac");
    expect(again.status).toBe(200);
    expect(again.body.data.moved).toEqual([]);
    const audits = await env.DB.prepare(`SELECT details FROM audit_log WHERE action = 'client.region' AND target = ?1`)
      .bind(`client:${clientId}`)
      .all();
    expect(audits.results).toHaveLength(1);
    const third = await moveTo(clientId, "weur");
    expect(third.body.data.moved).toEqual([
      { currency: "USD", from: { generation: 1, region: "apac" }, to: { generation: 2, region: "weur" }, amount: 40 },
    ]);
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
        [2, "weur"],
      ]),
    ).toBe("40");
    expect(await wallet(clientId, "USD", 2, "weur").balance()).toBe("40");
  });

  it.each([
    ["a place name", "singapore"],
    ["null", null],
    ["no region", undefined],
  ])("refuses %s with 400 and moves nothing", async (_name, region) => {
    const { clientId } = await newClient("10");
    const before = await auditActions();
    const refused = await admin("POST", `/admin/clients/${clientId}/region`, region === undefined ? {} : { region });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("invalid_request_body");
    await expectConforms("POST", "/admin/clients/{clientId}/region", refused);
    expect(await auditActions()).toEqual(before);
    expect(
      await env.DB.prepare(`SELECT generation, moving_to FROM wallets WHERE client_id = ?1`).bind(clientId).first(),
    ).toEqual({ generation: 0, moving_to: null });
  });

  it("404 for an unknown client; 403 without the admin token", async () => {
    expect((await moveTo("nobody-here", "apac")).body.code).toBe("client_not_found");
    expect(
      (await admin("POST", "/admin/clients/demo/region", { region: "apac" }, { token: "sk_test_demo" })).status,
    ).toBe(403);
  });

  it("a client with no wallet gets its region, and its first wallet is created there", async () => {
    const clientId = uid("mv");
    expect((await admin("POST", "/admin/clients", { id: clientId, name: clientId })).status).toBe(200);
    const set = await moveTo(clientId, "oc");
    expect(set.body.data).toMatchObject({ client: { region: "oc" }, moved: [] });
    await admin("POST", `/admin/wallets/${clientId}/EUR/top-ups`, {
      amount: "5",
      idempotencyKey: "first",
      reason: "test",
    });
    expect(
      await env.DB.prepare(`SELECT region, generation FROM wallets WHERE client_id = ?1`).bind(clientId).first(),
    ).toEqual({ region: "oc", generation: 0 });
    expect(new Set(hintsOf(clientId, "EUR", 0, "oc"))).toEqual(new Set(["oc"]));
  });

  it.each([
    ["the batch that records it", WALLET_MOVE_SEAMS.start],
    ["moving the old wallet out", WALLET_MOVE_SEAMS.moveOut],
    ["the transfer into the new wallet", WALLET_MOVE_SEAMS.moveIn],
    ["pointing the registry at the new wallet", WALLET_MOVE_SEAMS.register],
  ])("cut off at %s (reply lost) answers 500, and the same request again finishes it once", async (_name, seam) => {
    const { clientId } = await newClient("70");
    armFault(seam, { when: "after" });
    expect((await moveTo(clientId, "apac")).status).toBe(500);
    const retried = await moveTo(clientId, "apac");
    expect(retried.status).toBe(200);
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("70");
    expect(await wallet(clientId, "USD").balance()).toBe("0");
    expect((await entriesAt(clientId, "USD", 1, "apac")).filter((entry) => entry.kind === "move_in")).toHaveLength(1);
    expect(
      await env.DB.prepare(`SELECT generation, moving_to FROM wallets WHERE client_id = ?1`).bind(clientId).first(),
    ).toEqual({ generation: 1, moving_to: null });
  });

  it("the operator ledger shows the old wallet's entries, then the new one's, each naming its wallet, across pages", async () => {
    const { clientId } = await newClient("100");
    await admin("POST", `/admin/wallets/${clientId}/USD/adjustments`, {
      amount: "-10",
      idempotencyKey: "fee",
      reason: "fee",
    });
    await moveTo(clientId, "apac");
    await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      amount: "5",
      idempotencyKey: "after",
      reason: "after the move",
    });
    const full = await admin("GET", `/admin/wallets/${clientId}/USD/ledger`);
    await expectConforms("GET", "/admin/wallets/{clientId}/{currency}/ledger", full);
    const rows = full.body.data.entries.map((entry: any) => [
      entry.kind,
      entry.amount,
      entry.wallet.generation,
      entry.wallet.region,
    ]);
    expect(rows).toEqual([
      ["top_up", 100, 0, null],
      ["adjustment", -10, 0, null],
      ["move_out", -90, 0, null],
      ["move_in", 90, 1, "apac"],
      ["top_up", 5, 1, "apac"],
    ]);
    // One entry a page: the cursor carries on from the old wallet into the new one.
    const seen: string[] = [];
    let after: number | null = 0;
    for (let page = 0; after !== null && page < 10; page += 1) {
      const got: any = await admin("GET", `/admin/wallets/${clientId}/USD/ledger?limit=2&after=${after}`);
      seen.push(...got.body.data.entries.map((entry: any) => entry.key));
      after = got.body.data.next;
    }
    expect(seen).toEqual(full.body.data.entries.map((entry: any) => entry.key));
    // A replay of a top-up made before the move finds its entry in the old wallet and adds nothing.
    const replay = await admin("POST", `/admin/wallets/${clientId}/USD/adjustments`, {
      amount: "-10",
      idempotencyKey: "fee",
      reason: "fee",
    });
    expect(replay.body.data).toMatchObject({ replayed: true, entry: { wallet: { generation: 0 } }, balance: 0 });
    expect(await wallet(clientId, "USD", 1, "apac").balance()).toBe("95");
  });

  it("the export carries the old wallet's ledger in `previous`, and the new one's restores into an empty wallet", async () => {
    const { clientId } = await newClient("30");
    await moveTo(clientId, "me");
    const exported = await admin("GET", `/admin/wallets/${clientId}/USD/export`);
    await expectConforms("GET", "/admin/wallets/{clientId}/{currency}/export", exported);
    const data = exported.body.data;
    expect(data.wallet).toEqual({ generation: 1, region: "me" });
    expect(data.entries.map((entry: any) => entry.kind)).toEqual(["move_in"]);
    expect(data.previous).toHaveLength(1);
    expect(data.previous[0].wallet).toEqual({ generation: 0, region: null });
    expect(data.previous[0].entries.map((entry: any) => entry.kind)).toEqual(["top_up", "move_out"]);
    // Restored into another client's empty wallet of the same currency: the current object's chain stands alone.
    const target = uid("mv");
    await admin("POST", "/admin/clients", { id: target, name: target });
    // Another client stands in for a new deployment's: the export as that deployment would have signed it.
    const relabelled = { ...data, clientId: target };
    const restored = await admin("POST", `/admin/wallets/${target}/USD/restore`, {
      ...relabelled,
      signature: await exportSignature(relabelled),
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.data.balance).toBe("30");
  });
});

describe("orders in flight across a move: each charged, voided or refunded exactly once", () => {
  it("created before the move (holding codes) and confirmed after: the hold moves with the money, the charge lands in the new wallet", async () => {
    const { clientId, key } = await newClient("100");
    const created = await create(key, [line("DEMO-EU-FIXED", 10, 1)]);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = created.body.data.id as string;
    const charge = new Money(created.body.data.invoice.total).toFixed();
    expect(await holdsOf(clientId, "USD")).toEqual([orderId]);
    await moveTo(clientId, "apac");
    expect(await holdsOf(clientId, "USD")).toEqual([]);
    expect(await holdsOf(clientId, "USD", 1, "apac")).toEqual([orderId]);
    expect((await confirm(key, orderId)).status).toBe(200);
    await drainTimers(orderId);
    expect(await holdsOf(clientId, "USD", 1, "apac")).toEqual([]);
    const charges = [...(await entriesAt(clientId, "USD")), ...(await entriesAt(clientId, "USD", 1, "apac"))].filter(
      (entry) => entry.key === chargeKey(orderId),
    );
    expect(charges).toHaveLength(1);
    expect((await entriesAt(clientId, "USD", 1, "apac")).some((entry) => entry.key === chargeKey(orderId))).toBe(true);
    expect(await storedOrder(orderId)).toMatchObject({
      state: "successful",
      walletGeneration: 1,
      walletRegion: "apac",
    });
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe(new Money(100).minus(charge).toFixed());
    // The console's order page reads the order's movements in the wallet that holds its charge.
    const page = await callPage(orderPage, "GET", `/console/orders/${orderId}`, {
      role: "viewer",
      params: { orderId },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain("<strong>charged</strong>");
  });

  it("confirmed while the transfer is in transit (the move cut off after the old wallet moved out): the charge delivers it and lands once", async () => {
    const { clientId, key } = await newClient("100");
    const created = await create(key, [line("DEMO-US-RANGE", 25)]);
    const orderId = created.body.data.id as string;
    armFault(WALLET_MOVE_SEAMS.moveIn, { when: "before" });
    expect((await moveTo(clientId, "apac")).status).toBe(500);
    expect(await wallet(clientId, "USD", 1, "apac").balance()).toBe("0");
    expect((await confirm(key, orderId)).status).toBe(200);
    expect(await wallet(clientId, "USD", 1, "apac").balance()).toBe("75");
    // The operator's retry finishes the registry; the transfer is not taken in twice.
    expect((await moveTo(clientId, "apac")).status).toBe(200);
    await drainTimers(orderId);
    expect((await entriesAt(clientId, "USD", 1, "apac")).filter((entry) => entry.kind === "move_in")).toHaveLength(1);
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("75");
  });

  it("created while the registry still names the old wallet: the create follows it to the new one and is stored against it", async () => {
    const { clientId, key } = await newClient("100");
    armFault(WALLET_MOVE_SEAMS.register, { when: "before" });
    expect((await moveTo(clientId, "apac")).status).toBe(500);
    const created = await create(key, [line("DEMO-US-RANGE", 10)]);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = created.body.data.id as string;
    expect(await storedOrder(orderId)).toMatchObject({ walletGeneration: 1, walletRegion: "apac" });
    expect((await confirm(key, orderId)).status).toBe(200);
    await drainTimers(orderId);
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("90");
  });

  it("charged before the move, a line refunded after: the old wallet takes the refund and forwards it to the new one", async () => {
    const { clientId, key } = await newClient("100");
    const created = await create(key, [line("DEMO-US-RANGE", 10), line("DEMO-US-FAILING", 7)]);
    const orderId = created.body.data.id as string;
    // Processing waits: the failing line's supplier call fails once, so its refund is left to the timer.
    armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 2 });
    expect((await confirm(key, orderId)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await entriesAt(clientId, "USD")).some((entry) => entry.key === chargeKey(orderId))).toBe(true);
    // Its retry waits for drainTimers, not for the platform's alarm, which may fire during the move.
    await rewriteStoredOrder(orderId, () => {}, { process: Date.now() + 60_000 });
    expect((await entriesAt(clientId, "USD")).some((entry) => entry.kind === "order_refund")).toBe(false);
    await moveTo(clientId, "apac");
    clearFaults();
    await drainTimers(orderId);
    expect((await storedOrder(orderId)).state).toBe("partial");
    const old = await entriesAt(clientId, "USD");
    const fresh = await entriesAt(clientId, "USD", 1, "apac");
    expect(old.filter((entry) => entry.key === refundKey(orderId, "DEMO-US-FAILING"))).toMatchObject([
      { kind: "order_refund", amount: "7" },
    ]);
    expect(old.filter((entry) => entry.key === forwardKey(refundKey(orderId, "DEMO-US-FAILING")))).toMatchObject([
      { kind: "move_out", amount: "-7" },
    ]);
    expect(fresh.filter((entry) => entry.key === forwardKey(refundKey(orderId, "DEMO-US-FAILING")))).toMatchObject([
      { kind: "move_in", amount: "7" },
    ]);
    expect(await wallet(clientId, "USD").balance()).toBe("0");
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("90");
  });

  it("charged before the move by a confirm cut off, expired after: the void credits it back in the old wallet and forwards it; a late confirm is 419", async () => {
    const { clientId, key } = await newClient("100");
    const created = await create(key, [line("DEMO-US-RANGE", 20)]);
    const orderId = created.body.data.id as string;
    armFault(ORDER_SEAMS.walletCharge, { when: "after" });
    expect((await confirm(key, orderId)).status).toBe(500);
    // Past expiresAt at once, so that settling (its alarm 5 s ahead) confirms nothing.
    await backdateExpiry(orderId);
    await moveTo(clientId, "apac");
    expect((await entriesAt(clientId, "USD")).some((entry) => entry.kind === "order_void")).toBe(false);
    await makeExpiryDue(orderId);
    await runDurableObjectAlarm(orderStub(orderId));
    await drainTimers(orderId);
    expect((await storedOrder(orderId)).state).toBe("rejected");
    const old = await entriesAt(clientId, "USD");
    expect(old.filter((entry) => entry.key === voidKey(orderId))).toMatchObject([{ kind: "order_void", amount: "20" }]);
    expect(
      (await entriesAt(clientId, "USD", 1, "apac")).filter((entry) => entry.key === forwardKey(voidKey(orderId))),
    ).toMatchObject([{ amount: "20" }]);
    expect((await confirm(key, orderId)).status).toBe(419);
    // Voided in both: a late charge is refused by either wallet.
    for (const purse of [wallet(clientId, "USD"), wallet(clientId, "USD", 1, "apac")]) {
      expect(await purse.post({ key: chargeKey(orderId), kind: "order_charge", amount: "20", orderId })).toMatchObject({
        ok: false,
        code: "order_voided",
      });
    }
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("100");
  });

  it("created before the move and expiring during it: voided in both wallets, its hold gone, nothing charged", async () => {
    const { clientId, key } = await newClient("100");
    const created = await create(key, [line("DEMO-EU-FIXED", 10, 1)]);
    const orderId = created.body.data.id as string;
    armFault(WALLET_MOVE_SEAMS.register, { when: "before" });
    expect((await moveTo(clientId, "apac")).status).toBe(500);
    await backdateExpiry(orderId);
    await makeExpiryDue(orderId);
    await runDurableObjectAlarm(orderStub(orderId));
    expect((await moveTo(clientId, "apac")).status).toBe(200);
    await drainTimers(orderId);
    expect((await storedOrder(orderId)).state).toBe("rejected");
    expect(await holdsOf(clientId, "USD", 1, "apac")).toEqual([]);
    expect((await wallet(clientId, "USD", 1, "apac").chargeStatus(orderId)).status).toBe("voided");
    expect((await confirm(key, orderId)).status).toBe(419);
    expect(
      await balancesAcross(clientId, "USD", [
        [0, null],
        [1, "apac"],
      ]),
    ).toBe("100");
  });

  it("a create, confirm and get after the move open only the new wallet object, with its hint", async () => {
    const { clientId, key } = await newClient("100");
    await moveTo(clientId, "apac");
    openings.clear();
    const created = await create(key, [line("DEMO-US-RANGE", 10)]);
    const orderId = created.body.data.id as string;
    expect((await confirm(key, orderId)).status).toBe(200);
    await drainTimers(orderId);
    expect(hintsOf(clientId, "USD", 0, null)).toEqual([]);
    expect(hintsOf(clientId, "USD", 1, "apac").length).toBeGreaterThanOrEqual(2);
    expect(new Set(hintsOf(clientId, "USD", 1, "apac"))).toEqual(new Set(["apac"]));
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 90 }]);
  });
});
