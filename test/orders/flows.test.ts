/**
 * The order's flows (src/orders/*-flow.ts, stuck-report.ts) against a fake host: a real OrderStore over a
 * scratch object's storage and the real D1, with the clock, the wallet, the suppliers, the queue and the
 * alarm played here, so that each flow's decisions are seen call by call. The suites that drive the
 * object through the Worker (the rest of test/orders, test/crash) prove the same flows end to end.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { IssueOutcome, IssueRequest } from "../../src/fulfilment/supplier";
import { confirm, settle, SETTLE_AFTER_MS } from "../../src/orders/confirm-flow";
import { create, type CreateInput } from "../../src/orders/create-flow";
import { expire } from "../../src/orders/expiry-flow";
import {
  placement,
  type AtWallet,
  type OrderHost,
  type OrderWallet,
  type TimerChanges,
  type WalletOf,
} from "../../src/orders/order-host";
import type { OrderLine, OrderRecord } from "../../src/orders/order-record";
import { OrderStore } from "../../src/orders/order-store";
import { processOrder } from "../../src/orders/processing-flow";
import type { CreateOrderRequest } from "../../src/orders/requests";
import { ORDER_SEAMS, type OrderSeam } from "../../src/orders/seams";
import { reportStuck } from "../../src/orders/stuck-report";
import { NO_DEAL } from "../../src/pricing/deal";
import { chargeKey, refundKey } from "../../src/wallets/ledger-keys";
import { addCodes, addProduct, uid } from "../order-helpers";

const NOW = 1_800_000_000_000;
const TTL_MS = 600_000;

function line(
  sku: string,
  supplier: OrderLine["product"]["supplier"],
  status: OrderLine["status"] = "pending",
): OrderLine {
  return {
    sku,
    productType: "range",
    quote: "10",
    quantity: 1,
    product: { name: sku, country: "XX", region: "Test", currency: "USD", supplier, supplierConfig: {} },
    deal: NO_DEAL,
    faceValue: "10",
    fee: "0",
    discount: "0",
    lineTotal: "10",
    charge: "10",
    retailCharge: "10",
    rate: null,
    status,
    attempts: 0,
    redeem: null,
    refunded: "0",
    failureReason: null,
  };
}

function order(fields: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: "ord_unit",
    clientId: "unit-client",
    reference: "ref-1",
    requestHash: "hash",
    webhookUrl: null,
    wallet: "USD",
    state: "created",
    createdAt: NOW,
    modifiedAt: NOW,
    expiresAt: NOW + TTL_MS,
    lines: [line("SKU-A", "sandbox")],
    rates: [],
    charge: "10",
    retailCharge: "10",
    invoiceStatus: "unpaid",
    chargeIntentAt: null,
    ...fields,
  };
}

/** What the fake host saw: every seam passed, every save, every processing started, every batch queued. */
interface Seen {
  calls: string[];
  saves: { state: string; timers: TimerChanges }[];
  processSoon: number;
  queued: unknown[];
}

/**
 * A host over `storage` whose wallet answers with `wallet`'s methods (a call it does not play throws) and
 * whose suppliers answer with `issue`; the clock reads `clock.now`.
 */
function fakeHost(
  storage: DurableObjectStorage,
  wallet: Partial<OrderWallet> = {},
  issue?: (request: IssueRequest) => IssueOutcome,
) {
  const store = new OrderStore(storage);
  const clock = { now: NOW };
  const seen: Seen = { calls: [], saves: [], processSoon: 0, queued: [] };
  const unplayed = (name: string) => async () => {
    throw new Error(`the wallet's ${name} was not expected`);
  };
  const played: OrderWallet = {
    funds: wallet.funds ?? unplayed("funds"),
    openOrder: wallet.openOrder ?? unplayed("openOrder"),
    hold: wallet.hold ?? unplayed("hold"),
    releaseHold: wallet.releaseHold ?? unplayed("releaseHold"),
    post: wallet.post ?? unplayed("post"),
    voidOrder: wallet.voidOrder ?? unplayed("voidOrder"),
    chargeStatus: wallet.chargeStatus ?? unplayed("chargeStatus"),
  };
  const host: OrderHost = {
    orderId: "ord_unit",
    store,
    livemode: false,
    ttlMs: TTL_MS,
    unknownBudgetMs: 60_000,
    db: env.DB,
    queue: { sendBatch: async (batch: unknown[]) => void seen.queued.push(...batch) } as unknown as Queue,
    now: () => clock.now,
    io: async (seam, call) => {
      seen.calls.push(seam);
      return call();
    },
    writeBooks: async () => {
      throw new Error("the books were not expected");
    },
    save: async (saved, _previous, timers = {}) => {
      store.save(saved, timers, null);
      seen.saves.push({ state: saved.state, timers });
      return false;
    },
    armAlarm: async () => undefined,
    // A wallet that never moves: each call goes through its seam once, at the order's own placement.
    atWallet: async <T>(order: WalletOf, seam: OrderSeam, call: (wallet: OrderWallet) => Promise<T>) => ({
      answer: (await host.io(seam, () => call(played))) as AtWallet<T>["answer"],
      placement: placement(order),
    }),
    postCredit: (_order, seam, posting) => host.io(seam, () => played.post(posting)),
    voidOrderAlong: async (order, seam, reason) => {
      await host.io(seam, () => played.voidOrder(order.id, reason));
    },
    supplier: () => ({
      issue: async (request) =>
        (issue ?? (() => ({ kind: "issued", codes: [{ pin: "PIN", link: "https://redeem.example.com/PIN" }] })))(
          request,
        ),
    }),
    processSoon: () => void (seen.processSoon += 1),
  };
  return { host, store, clock, seen };
}

/** Runs `test` against the storage of a new, empty order object. */
function withStorage<T>(test: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  return runInDurableObject(env.ORDERS.get(env.ORDERS.newUniqueId()), (_instance, state) => test(state.storage));
}

function createInput(request: CreateOrderRequest, lines = [line("SKU-A", "sandbox")]): CreateInput {
  return {
    clientId: "unit-client",
    request,
    requestHash: "hash",
    plan: { ok: true, lines, rates: [], charge: "10", retailCharge: "10", walletRegion: null, walletGeneration: 0 },
    maxHeldCodes: 100,
    open: { maxOpen: 100, backoffStep: 20 },
  };
}

describe("the create flow", () => {
  it("stores every field of the request but its product list as the record's own, one added later too", async () => {
    await withStorage(async (storage) => {
      const { host, store } = fakeHost(storage, { openOrder: async () => ({ ok: true, balance: "100" }) });
      // A field the request does not have yet stands for one added later: it reaches the record untouched.
      const request = {
        productList: [{ sku: "SKU-A", productType: "range", quote: 10, quantity: 1 }],
        wallet: "USD",
        reference: "ref-1",
        giftMessage: "hi",
      };
      const created = await create(host, createInput(request as CreateOrderRequest));
      expect(created.ok).toBe(true);
      const stored = store.load()!;
      expect(stored).toMatchObject({
        wallet: "USD",
        reference: "ref-1",
        webhookUrl: null,
        giftMessage: "hi",
        state: "created",
        expiresAt: NOW + TTL_MS,
      });
      expect(stored).not.toHaveProperty("productList");
      expect(store.timers().map((timer) => [timer.kind, timer.dueAt])).toEqual([["expire", NOW + TTL_MS]]);
    });
  });

  it("refuses an order its balance does not cover and stores nothing", async () => {
    await withStorage(async (storage) => {
      const { host, store, seen } = fakeHost(storage, {
        openOrder: async () => ({ ok: false, code: "insufficient_funds", balance: "9.99" }),
      });
      const refused = await create(host, createInput({ productList: [], wallet: "USD", reference: "ref-1" }));
      expect(refused).toMatchObject({
        ok: false,
        code: "insufficient_funds",
        details: { balance: 9.99, required: 10 },
      });
      expect(seen.calls).toEqual([ORDER_SEAMS.walletBalance]);
      expect(store.load()).toBeNull();
      expect(store.timers()).toEqual([]);
    });
  });
});

/** The codes of `sku` reserved by any order now. */
async function reservedOf(sku: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM codes WHERE sku = ? AND status = 'reserved'`)
    .bind(sku)
    .first<{ n: number }>();
  return row!.n;
}

describe("the create flow of an order that reserves codes", () => {
  const request = { productList: [], wallet: "USD", reference: "ref-1" } as unknown as CreateOrderRequest;

  it("holds at the wallet before it reserves a code, so a refused hold never held stock", async () => {
    const sku = uid("FLOW-HOLD").toUpperCase();
    await addProduct({ sku, productType: "range", currency: "USD", min: "1", max: "100", supplier: "inventory" });
    await addCodes(sku, "10", 3);
    const lines = [{ ...line(sku, "inventory"), quantity: 3 }];
    await withStorage(async (storage) => {
      const seenAtHold: number[] = [];
      const { host, store, seen } = fakeHost(storage, {
        hold: async () => {
          seenAtHold.push(await reservedOf(sku));
          return { ok: false, code: "insufficient_funds", balance: "0.01" };
        },
      });
      const refused = await create(host, createInput(request, lines));
      expect(refused).toMatchObject({ ok: false, code: "insufficient_funds" });
      expect(seenAtHold).toEqual([0]);
      expect(await reservedOf(sku)).toBe(0);
      expect(seen.calls[0]).toBe(ORDER_SEAMS.walletHold);
      expect(store.timers()).toEqual([]);
    });
    await withStorage(async (storage) => {
      const seenAtHold: number[] = [];
      const { host, seen } = fakeHost(storage, {
        hold: async (hold) => {
          seenAtHold.push(await reservedOf(sku));
          expect(hold).toMatchObject({ amount: "10", codes: 3, maxCodes: 100 });
          return { ok: true, balance: "10", held: "10" };
        },
      });
      expect((await create(host, createInput(request, lines))).ok).toBe(true);
      expect(seenAtHold).toEqual([0]);
      expect(seen.calls).toEqual([ORDER_SEAMS.walletHold, ORDER_SEAMS.reserveCodes]);
      expect(await reservedOf(sku)).toBe(3);
    });
  });
});

describe("the confirm flow", () => {
  it("records the intent, charges once under the order's key, confirms and starts processing", async () => {
    await withStorage(async (storage) => {
      const posted: unknown[] = [];
      const { host, store, seen } = fakeHost(storage, {
        post: async (posting) => (posted.push(posting), { ok: true, entry: {} as never, replayed: false }),
      });
      store.save(order(), { expire: NOW + TTL_MS }, null);
      expect(await confirm(host, "unit-client")).toEqual({ ok: true, data: { id: "ord_unit", state: "confirmed" } });
      expect(posted).toEqual([
        // The order's creation day goes with its charge: the reconciliation pairs its ledger and its books by it.
        {
          key: chargeKey("ord_unit"),
          kind: "order_charge",
          amount: "10",
          orderId: "ord_unit",
          reason: "order ref-1",
          orderDay: Math.floor(NOW / 86_400_000),
        },
      ]);
      expect(seen.saves).toEqual([
        { state: "created", timers: { settle: NOW + SETTLE_AFTER_MS } },
        { state: "confirmed", timers: { expire: null, settle: null, process: NOW + SETTLE_AFTER_MS } },
      ]);
      expect(store.load()).toMatchObject({ state: "confirmed", invoiceStatus: "paid", chargeIntentAt: null });
      expect(seen.processSoon).toBe(1);
    });
  });

  it("a wallet that voided the order: 419, the order stays created, its intent and settle timer gone", async () => {
    await withStorage(async (storage) => {
      const { host, store, seen } = fakeHost(storage, {
        post: async () => ({ ok: false, code: "order_voided", voidedAt: NOW }),
      });
      store.save(order(), { expire: NOW + TTL_MS }, null);
      expect(await confirm(host, "unit-client")).toMatchObject({ ok: false, code: "order_expired" });
      expect(store.load()).toMatchObject({ state: "created", chargeIntentAt: null });
      expect(store.timers().map((timer) => timer.kind)).toEqual(["expire"]);
      expect(seen.processSoon).toBe(0);
    });
  });

  it("another client's order is order_not_found, and nothing is asked of the wallet", async () => {
    await withStorage(async (storage) => {
      const { host, store, seen } = fakeHost(storage);
      store.save(order(), {}, null);
      expect(await confirm(host, "someone-else")).toMatchObject({ ok: false, code: "order_not_found" });
      expect(seen.calls).toEqual([]);
    });
  });

  it("settling past expiresAt asks the wallet nothing and confirms nothing", async () => {
    await withStorage(async (storage) => {
      const { host, store, clock, seen } = fakeHost(storage);
      store.save(order({ chargeIntentAt: NOW }), { settle: NOW + SETTLE_AFTER_MS, expire: NOW + TTL_MS }, null);
      clock.now = NOW + TTL_MS;
      await settle(host);
      expect(seen.calls).toEqual([]);
      expect(store.load()?.state).toBe("created");
    });
  });
});

describe("the expiry flow", () => {
  it("before expiresAt rejects nothing and asks for the expiry again at expiresAt", async () => {
    await withStorage(async (storage) => {
      const { host, store, clock, seen } = fakeHost(storage);
      store.save(order(), { expire: NOW + TTL_MS }, null);
      clock.now = NOW + TTL_MS - 1;
      expect(await expire(host)).toBe(NOW + TTL_MS);
      expect(seen.calls).toEqual([]);
      expect(store.load()?.state).toBe("created");
    });
  });

  it("at expiresAt gives back the codes, voids the order in its wallet, stores it rejected, no timer", async () => {
    await withStorage(async (storage) => {
      const voided: string[] = [];
      const { host, store, clock, seen } = fakeHost(storage, {
        voidOrder: async (orderId) => (voided.push(orderId), { orderId, voidedAt: NOW, credit: null }),
      });
      store.save(
        order({ lines: [line("SKU-A", "inventory")], chargeIntentAt: NOW }),
        { expire: NOW + TTL_MS, settle: NOW + SETTLE_AFTER_MS },
        null,
      );
      clock.now = NOW + TTL_MS;
      expect(await expire(host)).toBeNull();
      expect(seen.calls).toEqual([ORDER_SEAMS.releaseCodes, ORDER_SEAMS.walletVoid]);
      expect(voided).toEqual(["ord_unit"]);
      expect(store.load()).toMatchObject({ state: "rejected", invoiceStatus: "void", chargeIntentAt: null });
      expect(store.timers()).toEqual([]);
    });
  });
});

describe("the processing flow", () => {
  it("issues each line, refunds a failed one under its own key, and ends partial", async () => {
    await withStorage(async (storage) => {
      const refunds: unknown[] = [];
      const { host, store, seen } = fakeHost(
        storage,
        { post: async (posting) => (refunds.push(posting), { ok: true, entry: {} as never, replayed: false }) },
        (request) =>
          request.line.sku === "SKU-B"
            ? { kind: "failed", reason: "gone" }
            : { kind: "issued", codes: [{ pin: "PIN-1", link: "https://redeem.example.com/PIN-1" }] },
      );
      store.save(
        order({
          state: "confirmed",
          invoiceStatus: "paid",
          lines: [line("SKU-A", "sandbox"), line("SKU-B", "sandbox")],
        }),
        { process: NOW + SETTLE_AFTER_MS },
        null,
      );
      await processOrder(host);
      expect(refunds).toEqual([
        {
          key: refundKey("ord_unit", "SKU-B"),
          kind: "order_refund",
          amount: "10",
          orderId: "ord_unit",
          reason: "SKU-B could not be fulfilled",
          orderDay: Math.floor(NOW / 86_400_000),
        },
      ]);
      expect(seen.calls).toEqual([ORDER_SEAMS.supplierSandbox, ORDER_SEAMS.supplierSandbox, ORDER_SEAMS.walletRefund]);
      const ended = store.load()!;
      expect(ended.state).toBe("partial");
      expect(ended.lines.map((l) => [l.sku, l.status, l.refunded])).toEqual([
        ["SKU-A", "fulfilled", "0"],
        ["SKU-B", "failed", "10"],
      ]);
      expect(store.timers()).toEqual([]);
    });
  });

  it("a line of unknown outcome stays pending and unrefunded, and processing is due again", async () => {
    await withStorage(async (storage) => {
      const { host, store, seen } = fakeHost(storage, {}, () => ({ kind: "unknown", reason: "timeout" }));
      store.save(
        order({ state: "confirmed", invoiceStatus: "paid", lines: [line("SKU-U", "upstream")] }),
        { process: NOW + SETTLE_AFTER_MS },
        null,
      );
      await processOrder(host);
      expect(seen.calls).toEqual([ORDER_SEAMS.supplierUpstream]);
      expect(store.load()).toMatchObject({
        state: "processing",
        lines: [{ status: "pending", refunded: "0", unknownSince: NOW }],
      });
      expect(store.timers().map((timer) => [timer.kind, timer.dueAt > NOW])).toEqual([["process", true]]);
    });
  });
});

describe("the stuck report", () => {
  it("a run with nothing failing, after a report of nothing, writes nothing to D1", async () => {
    await withStorage(async (storage) => {
      const { host, store, seen } = fakeHost(storage);
      store.save(order(), { expire: NOW + TTL_MS }, null);
      store.markReported(null);
      await reportStuck(host);
      expect(seen.calls).toEqual([]);
    });
  });

  it("a timer failing for the third time is written to the stuck list once", async () => {
    await withStorage(async (storage) => {
      const { host, store, seen } = fakeHost(storage);
      const orderId = `ord_unit_${crypto.randomUUID()}`;
      store.save(order({ id: orderId }), { expire: NOW + TTL_MS }, null);
      for (let failure = 1; failure <= 3; failure += 1) store.failTimer("expire", NOW, "wallet down");
      await reportStuck(host);
      await reportStuck(host);
      expect(seen.calls).toEqual([ORDER_SEAMS.timerReport]);
      const row = await env.DB.prepare(`SELECT timer, failures, last_error FROM timer_failures WHERE order_id = ?1`)
        .bind(orderId)
        .first();
      expect(row).toEqual({ timer: "expire", failures: 3, last_error: "wallet down" });
    });
  });
});
