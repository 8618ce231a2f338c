/**
 * Idempotent `reference`: the same body returns the same order (no second order, no second
 * reservation, no second charge); another body is 409 Reference already used.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { balanceOf, call, confirmOrder, createOrder, getOrder, ledgerSumOf, line, seedDemo, topUp } from "../helpers";
import {
  MESSAGES,
  addCodes,
  addProduct,
  availableCodes,
  codesOfOrder,
  expectError,
  expectOk,
  expireByAlarm,
  freshClient,
  ledgerOf,
  uid,
} from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "100000");
  await addProduct({ sku: "T-IDEM", productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
  await addCodes("T-IDEM", "10", 60);
});

const body = (reference: string, quantity = 2) => ({
  productList: [line("T-IDEM", 10, quantity, "fixed"), line("DEMO-JP-RANGE", 1000, 1)],
  wallet: "USD",
  reference,
});

describe("same reference, same body → the same order", () => {
  it("returns the same id and data, marks the replay, and reserves nothing more", async () => {
    const client = await freshClient({ USD: "100" });
    const reference = uid("ref");
    const first = await call("POST", "/order/create", { key: client.key, body: body(reference) });
    const data = expectOk(first);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const available = await availableCodes("T-IDEM", "10");
    const again = await call("POST", "/order/create", { key: client.key, body: body(reference) });
    expect(expectOk(again)).toEqual(data);
    expect(again.body.message).toBe("Order already exists for this reference");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await availableCodes("T-IDEM", "10")).toBe(available);
    expect(await codesOfOrder(data.id)).toHaveLength(2);
  });

  it("the same body with keys in another order and extra unknown fields is still the same body", async () => {
    const client = await freshClient({ USD: "100" });
    const reference = uid("ref");
    const a = expectOk(await call("POST", "/order/create", { key: client.key, body: body(reference) }));
    const reordered = {
      reference,
      wallet: "USD",
      note: "ignored",
      productList: [
        { quantity: 2, quote: 10.0, productType: "fixed", sku: "T-IDEM" },
        { quantity: 1, sku: "DEMO-JP-RANGE", quote: 1000, productType: "range" },
      ],
    };
    expect(expectOk(await call("POST", "/order/create", { key: client.key, body: reordered })).id).toBe(a.id);
  });

  it("a replay after confirm charges nothing again, even when the wallet could no longer pay", async () => {
    const client = await freshClient({ USD: "26.67" }); // 20 + 6.67
    const reference = uid("ref");
    const data = expectOk(await call("POST", "/order/create", { key: client.key, body: body(reference) }));
    expect(data.invoice.total).toBe(26.67);
    expectOk(await confirmOrder(data.id, client.key));
    expect(await balanceOf(client.id, "USD")).toBe("0");
    const entries = await ledgerOf(client.id, "USD");
    const replay = await call("POST", "/order/create", { key: client.key, body: body(reference) });
    expect(expectOk(replay).id).toBe(data.id);
    expect(await ledgerOf(client.id, "USD")).toEqual(entries);
    expect(await balanceOf(client.id, "USD")).toBe("0");
    expect(await ledgerSumOf(client.id, "USD")).toBe("0");
    // and confirming the replayed id again is the repeated confirmation
    expectError(await confirmOrder(data.id, client.key), 409, MESSAGES.alreadyConfirmed);
  });

  it("10 concurrent creates with one reference and one body: one order, one reservation", async () => {
    const client = await freshClient({ USD: "100" });
    const reference = uid("ref");
    const available = await availableCodes("T-IDEM", "10");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call("POST", "/order/create", { key: client.key, body: body(reference, 3) })),
    );
    const ids = new Set(results.map((res) => expectOk(res).id));
    expect(ids.size).toBe(1);
    expect(results.filter((res) => res.headers.get("idempotent-replayed") === "true")).toHaveLength(9);
    expect(await availableCodes("T-IDEM", "10")).toBe(available - 3);
    expect(await codesOfOrder([...ids][0]!)).toHaveLength(3);
  });
});

describe("same reference, another body → 409 Reference already used", () => {
  const variants: [string, (reference: string) => Record<string, unknown>][] = [
    ["another quantity", (r) => body(r, 3)],
    [
      "another quote",
      (r) => ({ ...body(r), productList: [line("T-IDEM", 10, 2, "fixed"), line("DEMO-JP-RANGE", 1001, 1)] }),
    ],
    [
      "lines in another order",
      (r) => ({ ...body(r), productList: [line("DEMO-JP-RANGE", 1000, 1), line("T-IDEM", 10, 2, "fixed")] }),
    ],
    ["a line fewer", (r) => ({ ...body(r), productList: [line("T-IDEM", 10, 2, "fixed")] })],
    ["another wallet", (r) => ({ ...body(r), wallet: "EUR" })],
    ["a webhookUrl added", (r) => ({ ...body(r), webhookUrl: "https://hooks.example.com/orders" })],
  ];
  it.each(variants)(
    "%s → 409, nothing reserved, nothing charged, the first order unchanged",
    async (_name, variant) => {
      const client = await freshClient({ USD: "100", EUR: "100" });
      const reference = uid("ref");
      const data = expectOk(await call("POST", "/order/create", { key: client.key, body: body(reference) }));
      const available = await availableCodes("T-IDEM", "10");
      const res = await call("POST", "/order/create", { key: client.key, body: variant(reference) });
      expectError(res, 409, MESSAGES.referenceUsed, "reference_already_used");
      expect(await availableCodes("T-IDEM", "10")).toBe(available);
      expect(await balanceOf(client.id, "USD")).toBe("100");
      const view = expectOk(await getOrder(data.id, client.key));
      expect(view.invoice).toEqual(data.invoice);
      expect(view.state).toBe("created");
    },
  );

  it("the check comes before the catalogue: another body with an unknown SKU is 409 too", async () => {
    const client = await freshClient({ USD: "100" });
    const reference = uid("ref");
    expectOk(await call("POST", "/order/create", { key: client.key, body: body(reference) }));
    expectError(
      await createOrder({ productList: [line("NOPE", 10, 1)], reference }, client.key),
      409,
      MESSAGES.referenceUsed,
    );
  });

  it("concurrent creates with one reference and different bodies: exactly one 200, the rest 409", async () => {
    const client = await freshClient({ USD: "1000" });
    const reference = uid("ref");
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((quantity) =>
        call("POST", "/order/create", { key: client.key, body: body(reference, quantity) }),
      ),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expectError(res, 409, MESSAGES.referenceUsed);
    const winner = results.find((res) => res.status === 200)!.body.data.id;
    const quantity = expectOk(await getOrder(winner, client.key)).products["T-IDEM"].request.quantity;
    expect(await codesOfOrder(winner)).toHaveLength(quantity);
  });

  it("a reference stays taken after its order expired: same body replays the rejected order, another body is 409", async () => {
    const client = await freshClient({ USD: "100" });
    const reference = uid("ref");
    const data = expectOk(await call("POST", "/order/create", { key: client.key, body: body(reference) }));
    expect(await expireByAlarm(data.id)).toBe(true);
    expect(expectOk(await getOrder(data.id, client.key)).state).toBe("rejected");
    const replay = expectOk(await call("POST", "/order/create", { key: client.key, body: body(reference) }));
    expect(replay.id).toBe(data.id);
    expect(replay.invoice.status).toBe("void");
    expectError(
      await call("POST", "/order/create", { key: client.key, body: body(reference, 1) }),
      409,
      MESSAGES.referenceUsed,
    );
    expect(await codesOfOrder(data.id)).toHaveLength(0);
  });
});
