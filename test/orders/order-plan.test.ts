/**
 * The plan of a new order (src/orders/order-plan.ts): the list checks with any limits (the total limit can
 * only be reached on its own when per-SKU × SKUs exceeds it), and planOrder's step 3/4 order over a
 * hand-made catalogue snapshot. Plus the order life cycle rules of transitions.ts and the view helpers.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { catalogueProduct } from "../catalogue-fixtures";
import { rateKey, type CatalogueSnapshot } from "../../src/catalogue/catalogue-store";
import type { CatalogueProduct, Deal } from "../../src/catalogue/catalogue-schemas";
import { checkProductList, limitsFromEnv, planOrder, type OrderLimits } from "../../src/orders/order-plan";
import { objectIdOf, orderIdOf, orderObjectName } from "../../src/orders/order-id";
import type { OrderRecord } from "../../src/orders/order-record";
import { timestamp } from "../../src/orders/order-view";
import type { CreateOrderRequest } from "../../src/orders/order-schemas";
import { canTransition, confirmable, outcomeOf, transition } from "../../src/orders/transitions";

type Line = CreateOrderRequest["productList"][number];
const l = (sku: string, quantity: number, quote = 10, productType = "range"): Line => ({
  sku,
  productType,
  quote,
  quantity,
});
const req = (productList: Line[], wallet = "USD"): CreateOrderRequest => ({ productList, wallet, reference: "r" });
const codeOf = (result: ReturnType<typeof checkProductList>) => result?.code ?? null;

describe("limits come from the wrangler vars (5, 5, 25 by default)", () => {
  it("limitsFromEnv", () => {
    expect(limitsFromEnv(env)).toEqual({ maxQuantityPerSku: 5, maxSkusPerOrder: 5, maxTotalQuantity: 25 });
  });
});

describe("checkProductList", () => {
  const spec: OrderLimits = { maxQuantityPerSku: 5, maxSkusPerOrder: 5, maxTotalQuantity: 25 };
  const wide: OrderLimits = { maxQuantityPerSku: 10, maxSkusPerOrder: 5, maxTotalQuantity: 25 };

  it("total 25 is allowed, 26 is too big (with per-SKU 10 so the total limit is reached alone)", () => {
    expect(checkProductList(req([l("A", 10), l("B", 10), l("C", 5)]), wide)).toBeNull();
    const over = checkProductList(req([l("A", 10), l("B", 10), l("C", 6)]), wide);
    expect(over).toMatchObject({
      ok: false,
      code: "product_list_too_big",
      message: "Requested product list is bigger than allowed",
    });
    expect(over?.details).toMatchObject({ limit: "totalQuantity", max: 25, requested: 26 });
  });

  it("total over the limit spread across many small lines", () => {
    const many: OrderLimits = { maxQuantityPerSku: 5, maxSkusPerOrder: 30, maxTotalQuantity: 25 };
    expect(checkProductList(req(Array.from({ length: 25 }, (_, i) => l(`S${i}`, 1))), many)).toBeNull();
    expect(codeOf(checkProductList(req(Array.from({ length: 26 }, (_, i) => l(`S${i}`, 1))), many))).toBe(
      "product_list_too_big",
    );
  });

  it("per SKU: 5 is allowed, 6 is too big", () => {
    expect(checkProductList(req([l("A", 5)]), spec)).toBeNull();
    const over = checkProductList(req([l("A", 1), l("B", 6)]), spec);
    expect(codeOf(over)).toBe("product_list_too_big");
    expect(over?.details).toMatchObject({ limit: "quantityPerSku", sku: "B", requested: 6 });
  });

  it("SKUs: 5 are allowed, 6 are too many", () => {
    expect(checkProductList(req(["A", "B", "C", "D", "E"].map((s) => l(s, 1))), spec)).toBeNull();
    const over = checkProductList(req(["A", "B", "C", "D", "E", "F"].map((s) => l(s, 1))), spec);
    expect(codeOf(over)).toBe("product_list_too_big");
    expect(over?.details).toMatchObject({ limit: "skus", requested: 6 });
  });

  it("5 × 5 = 25 with the default limits is allowed (the total can't be exceeded alone)", () => {
    expect(checkProductList(req(["A", "B", "C", "D", "E"].map((s) => l(s, 5))), spec)).toBeNull();
  });

  it("other limits are honoured, not hard-coded", () => {
    const tight: OrderLimits = { maxQuantityPerSku: 2, maxSkusPerOrder: 2, maxTotalQuantity: 3 };
    expect(checkProductList(req([l("A", 2), l("B", 1)]), tight)).toBeNull();
    expect(codeOf(checkProductList(req([l("A", 3)]), tight))).toBe("product_list_too_big");
    expect(codeOf(checkProductList(req([l("A", 1), l("B", 1), l("C", 1)]), tight))).toBe("product_list_too_big");
    expect(codeOf(checkProductList(req([l("A", 2), l("B", 2)]), tight))).toBe("product_list_too_big");
  });

  it("empty list and duplicate SKUs: not formatted well, and that comes before the limits", () => {
    const empty = checkProductList(req([]), spec);
    expect(empty).toMatchObject({ code: "product_list_malformed", message: "Your product list is not formatted well" });
    expect(codeOf(checkProductList(req([l("A", 1), l("A", 1)]), spec))).toBe("product_list_malformed");
    expect(
      codeOf(
        checkProductList(req([l("A", 9), l("B", 1), l("C", 1), l("D", 1), l("E", 1), l("F", 1), l("A", 9)]), spec),
      ),
    ).toBe("product_list_malformed");
  });
});

describe("planOrder: step 3 and 4 in order over a catalogue snapshot", () => {
  const P = (sku: string, o: Partial<CatalogueProduct>): CatalogueProduct => catalogueProduct({ sku, name: sku, ...o });
  function snapshot(over: Partial<CatalogueSnapshot> = {}): CatalogueSnapshot {
    const products = new Map<string, CatalogueProduct>([
      ["US", P("US", {})],
      [
        "EU",
        P("EU", {
          productType: "fixed",
          currency: "EUR",
          quotes: ["10", "25"],
          minQuote: null,
          maxQuote: null,
          supplier: "inventory",
        }),
      ],
      [
        "GB",
        P("GB", {
          productType: "fixed",
          currency: "GBP",
          quotes: ["20"],
          minQuote: null,
          maxQuote: null,
          supplier: "inventory",
        }),
      ],
      ["EU2", P("EU2", { currency: "EUR", minQuote: "1", maxQuote: "100" })],
      ["OFF", P("OFF", { active: false })],
    ]);
    return {
      products,
      walletCurrencies: new Set(["USD", "EUR"]),
      walletRegions: new Map(),
      walletGenerations: new Map(),
      rates: new Map([
        [rateKey("USD", "EUR"), { baseCurrency: "USD", targetCurrency: "EUR", rate: "0.92", modifiedAt: 1 }],
        [rateKey("USD", "GBP"), { baseCurrency: "USD", targetCurrency: "GBP", rate: "0.79", modifiedAt: 1 }],
      ]),
      deals: new Map<string, Deal>(),
      ...over,
    };
  }
  const codeOfPlan = (result: ReturnType<typeof planOrder>) => (result.ok ? "ok" : result.code);

  it.each([
    ["unknown SKU", [l("NOPE", 1)], "USD", "product_not_found"],
    ["inactive SKU", [l("OFF", 1)], "USD", "product_not_found"],
    [
      "unknown SKU before a bad quote on a later line",
      [l("NOPE", 1), l("EU", 1, 11, "fixed")],
      "USD",
      "product_not_found",
    ],
    [
      "bad quote before an unknown SKU on a later line",
      [l("EU", 1, 11, "fixed"), l("NOPE", 1)],
      "USD",
      "quote_mismatch",
    ],
    ["out of range", [l("US", 1, 501)], "USD", "quote_out_of_range"],
    ["bad quote + no wallet", [l("EU", 1, 11, "fixed")], "GBP", "quote_mismatch"],
    ["no wallet + no exchange", [l("GB", 1, 20, "fixed")], "JPY", "wallet_not_found"],
    ["wallet listed but unknown currency", [l("US", 1)], "XYZ", "wallet_not_found"],
    ["no exchange (EUR wallet → GBP)", [l("GB", 1, 20, "fixed")], "EUR", "exchange_not_supported"],
    // Stock is decided when the order object reserves codes (tested over HTTP), not by the plan.
    ["inventory lines plan without looking at stock", [l("EU", 4, 10, "fixed"), l("GB", 1, 20, "fixed")], "USD", "ok"],
  ] as const)("%s → %s", (_name, lines, wallet, expected) => {
    const snap = snapshot();
    if (wallet === "XYZ") snap.walletCurrencies.add("XYZ");
    expect(codeOfPlan(planOrder(req([...lines], wallet), snap))).toBe(expected);
  });

  it("the wallet error carries the currency in its message", () => {
    const result = planOrder(req([l("US", 1)], "GBP"), snapshot());
    expect(result).toMatchObject({ ok: false, code: "wallet_not_found", message: "No wallet in currency GBP" });
  });

  it("a plan names the region its wallet's object is opened with: the registry's, or none", () => {
    const placed = planOrder(
      req([l("US", 1)], "USD"),
      snapshot({
        walletRegions: new Map([
          ["USD", "apac"],
          ["EUR", "weur"],
        ]),
      }),
    );
    expect(placed).toMatchObject({ ok: true, walletRegion: "apac" });
    const unplaced = planOrder(req([l("US", 1)], "USD"), snapshot({ walletRegions: new Map([["EUR", "weur"]]) }));
    expect(unplaced).toMatchObject({ ok: true, walletRegion: null });
  });

  it("a plan: lines priced, one rate per currency, charge = sum of the rounded lines", () => {
    const result = planOrder(req([l("US", 2, 10.5), l("EU", 1, 25, "fixed"), l("EU2", 1, 7)]), snapshot());
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.lines.map((line) => line.charge)).toEqual(["21", "27.18", "7.61"]);
    expect(result.charge).toBe("55.79");
    expect(result.retailCharge).toBe("55.79");
    expect(result.rates.map((rate) => rate.targetCurrency)).toEqual(["EUR"]);
    expect(result.lines[1]).toMatchObject({
      sku: "EU",
      quote: "25",
      quantity: 1,
      faceValue: "25",
      lineTotal: "25",
      status: "pending",
      refunded: "0",
    });
    expect(result.lines[0]!.rate).toBeNull();
  });

  it("a deal changes the charge but not the retail charge", () => {
    const deals = new Map<string, Deal>([
      [
        "US",
        {
          dealState: "active",
          fee: { amount: "10", adjustmentMode: "percentage" },
          discount: { amount: "0", adjustmentMode: "fixed" },
        },
      ],
    ]);
    const result = planOrder(req([l("US", 1, 100)]), snapshot({ deals }));
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.charge).toBe("110");
    expect(result.retailCharge).toBe("100");
  });
});

describe("order life cycle rules (transitions.ts)", () => {
  const order = (state: OrderRecord["state"], expiresAt = Date.now() + 60_000) =>
    ({ state, expiresAt, modifiedAt: 0, id: "o" }) as OrderRecord;

  it("allowed transitions are exactly those of the documented life cycle", () => {
    const states = ["created", "confirmed", "rejected", "processing", "failed", "partial", "successful"] as const;
    const allowed = new Set([
      "created>confirmed",
      "created>rejected",
      "confirmed>processing",
      "processing>successful",
      "processing>partial",
      "processing>failed",
    ]);
    for (const from of states)
      for (const to of states) expect(canTransition(from, to), `${from}>${to}`).toBe(allowed.has(`${from}>${to}`));
  });

  it("transition refuses an illegal move and never moves modifiedAt back", () => {
    expect(() => transition(order("rejected"), "confirmed", 1)).toThrow();
    expect(() => transition(order("confirmed"), "rejected", 1)).toThrow();
    const moved = transition({ ...order("created"), modifiedAt: 5_000 }, "confirmed", 1_000);
    expect(moved.state).toBe("confirmed");
    expect(moved.modifiedAt).toBe(5_000);
  });

  it("confirmable: created and unexpired ok; expired → order_expired; rejected → order_expired; anything later → order_already_confirmed", () => {
    const now = Date.now();
    expect(confirmable(order("created", now + 1), now)).toBeNull();
    expect(confirmable(order("created", now), now)).toMatchObject({ code: "order_expired", message: "Expired" });
    expect(confirmable(order("created", now - 1), now)).toMatchObject({ code: "order_expired" });
    expect(confirmable(order("rejected", now + 60_000), now)).toMatchObject({ code: "order_expired" });
    for (const state of ["confirmed", "processing", "successful", "partial", "failed"] as const) {
      expect(confirmable(order(state, now - 1), now), state).toMatchObject({
        code: "order_already_confirmed",
        message: "Order already confirmed",
      });
    }
  });

  it("outcomeOf", () => {
    expect(outcomeOf(["fulfilled", "fulfilled"])).toBe("successful");
    expect(outcomeOf(["fulfilled", "failed"])).toBe("partial");
    expect(outcomeOf(["failed", "failed"])).toBe("failed");
    expect(outcomeOf(["fulfilled", "pending"])).toBeNull();
  });
});

describe("order ids and timestamps", () => {
  it("an order id is ord_ + the object's hex id, and only such strings map back to an object", () => {
    const id = env.ORDERS.idFromName(orderObjectName("demo", "ref-1"));
    const orderId = orderIdOf(id);
    expect(orderId).toMatch(/^ord_[0-9a-f]{64}$/);
    expect(objectIdOf(env.ORDERS, orderId)?.toString()).toBe(id.toString());
    for (const bad of [
      "",
      "ord_",
      "ord_xyz",
      id.toString(),
      `ord_${id.toString()}0`,
      `ord_${id.toString().toUpperCase()}`,
      ` ${orderId}`,
    ]) {
      expect(objectIdOf(env.ORDERS, bad), bad).toBeNull();
    }
  });

  it("an order's object is named by client and reference: clients never share one", () => {
    expect(orderObjectName("a", "b")).not.toBe(orderObjectName("b", "a"));
    expect(env.ORDERS.idFromName(orderObjectName("c1", "r")).toString()).not.toBe(
      env.ORDERS.idFromName(orderObjectName("c2", "r")).toString(),
    );
  });

  it("timestamp(ms) → {_seconds, _nanoseconds}", () => {
    expect(timestamp(1767225600123)).toEqual({ _seconds: 1767225600, _nanoseconds: 123_000_000 });
    expect(timestamp(1767225600000)).toEqual({ _seconds: 1767225600, _nanoseconds: 0 });
    expect(timestamp(999)).toEqual({ _seconds: 0, _nanoseconds: 999_000_000 });
  });
});
