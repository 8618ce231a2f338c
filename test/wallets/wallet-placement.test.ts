/**
 * Wallets near their client: a client's region is the Durable Object location hint its wallet objects are
 * created with. Local workerd ignores hints, so these tests watch the namespace's calls themselves
 * (./wallet-openings.ts).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { REGIONS } from "../../src/wallets/wallet-registry-store";
import { call, confirmOrder, createOrder, getOrder, line, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, snapshot } from "../admin-helpers";
import { watchWalletOpenings } from "./wallet-openings";

const openings = watchWalletOpenings();

/** The hints the wallet of (client, currency) was opened with, one per opening. */
const hintsOf = (clientId: string, currency: string) => openings.hintsOf(clientId, currency);

async function newClient(id: string, region?: string): Promise<string> {
  const created = await admin("POST", "/admin/clients", { id, name: id, ...(region === undefined ? {} : { region }) });
  expect(created.status).toBe(200);
  return created.body.data.apiKey as string;
}

async function topUp(clientId: string, currency: string, amount: string) {
  const response = await admin("POST", `/admin/wallets/${clientId}/${currency}/top-ups`, {
    amount,
    idempotencyKey: crypto.randomUUID(),
    reason: "test",
  });
  expect(response.status).toBe(200);
  return response;
}

beforeAll(async () => {
  await seedDemo();
});

describe("a client's region", () => {
  it("is set when the client is created and shown wherever the client is shown", async () => {
    const created = await admin("POST", "/admin/clients", { id: "sg-reseller", name: "SG Reseller", region: "apac" });
    expect(created.status).toBe(200);
    await expectConforms("POST", "/admin/clients", created);
    expect(created.body.data.client).toMatchObject({ id: "sg-reseller", region: "apac" });
    const detail = await admin("GET", "/admin/clients/sg-reseller");
    await expectConforms("GET", "/admin/clients/{clientId}", detail);
    expect(detail.body.data.client.region).toBe("apac");
    const list = await admin("GET", "/admin/clients");
    await expectConforms("GET", "/admin/clients", list);
    expect(list.body.data.clients.find((client: { id: string }) => client.id === "sg-reseller").region).toBe("apac");
    const row = await env.DB.prepare(`SELECT region FROM clients WHERE id = 'sg-reseller'`).first<{ region: string }>();
    expect(row!.region).toBe("apac");
  });

  it("is optional: a client without one shows null", async () => {
    await newClient("no-region");
    expect((await admin("GET", "/admin/clients/no-region")).body.data.client.region).toBeNull();
  });

  it.each([
    ["a place name", "singapore"],
    ["a hint in capitals", "APAC"],
    ["not a string", 7],
    ["null", null],
  ])("refuses %s with 400 and changes nothing", async (_name, region) => {
    const before = await snapshot();
    const response = await admin("POST", "/admin/clients", { id: "bad-region", name: "Bad", region });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_request_body");
    await expectConforms("POST", "/admin/clients", response);
    expect(await snapshot()).toEqual(before);
  });

  it("accepts every Durable Object location hint", async () => {
    expect([...REGIONS]).toEqual(["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"]);
    for (const region of REGIONS) await newClient(`hint-${region}`, region);
  });
});

describe("wallet objects are opened with the client's region", () => {
  it("by the operator's top-up that opens the wallet, which registers the wallet with the region", async () => {
    await newClient("placed-top-up", "apac");
    await topUp("placed-top-up", "USD", "100");
    expect(hintsOf("placed-top-up", "USD").length).toBeGreaterThan(0);
    expect(new Set(hintsOf("placed-top-up", "USD"))).toEqual(new Set(["apac"]));
    const row = await env.DB.prepare(
      `SELECT region FROM wallets WHERE client_id = 'placed-top-up' AND currency = 'USD'`,
    ).first<{ region: string }>();
    expect(row!.region).toBe("apac");
  });

  it("by every operator and client route that reads the wallet", async () => {
    const key = await newClient("placed-reads", "oc");
    await topUp("placed-reads", "USD", "50");
    openings.clear();
    expect((await admin("GET", "/admin/wallets/placed-reads/USD")).status).toBe(200);
    expect((await admin("GET", "/admin/wallets/placed-reads/USD/ledger")).status).toBe(200);
    expect(
      (
        await admin("POST", "/admin/wallets/placed-reads/USD/adjustments", {
          amount: "-1",
          idempotencyKey: "adj-1",
          reason: "fee",
        })
      ).status,
    ).toBe(200);
    expect((await admin("GET", "/admin/clients/placed-reads")).body.data.wallets).toEqual([
      { currency: "USD", balance: 49 },
    ]);
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 49 }]);
    // One opening per route: the adjustment posts and reads the balance through one stub.
    expect(hintsOf("placed-reads", "USD")).toHaveLength(5);
    expect(new Set(hintsOf("placed-reads", "USD"))).toEqual(new Set(["oc"]));
  });

  it("by the order object, on create, confirm and the refund of a failed line", async () => {
    const key = await newClient("placed-orders", "apac");
    await topUp("placed-orders", "USD", "1000");
    openings.clear();
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10), line("DEMO-US-FAILING", 5)] }, key);
    expect(created.status).toBe(200);
    const afterCreate = hintsOf("placed-orders", "USD");
    expect(afterCreate.length).toBeGreaterThan(0);
    const orderId = created.body.data.id as string;
    expect((await confirmOrder(orderId, key)).status).toBe(200);
    await expect.poll(async () => (await getOrder(orderId, key)).body.data.state, { timeout: 10_000 }).toBe("partial");
    // Create asks the balance, confirm charges, processing refunds the failing line: each opens the wallet.
    expect(hintsOf("placed-orders", "USD").length).toBeGreaterThanOrEqual(afterCreate.length + 2);
    expect(new Set(hintsOf("placed-orders", "USD"))).toEqual(new Set(["apac"]));
    const balance = await admin("GET", "/admin/wallets/placed-orders/USD");
    expect(balance.body.data.balance).toBe(990);
  });

  it("a client without a region opens its wallets without a hint, as before", async () => {
    const key = await newClient("unplaced");
    await topUp("unplaced", "USD", "100");
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10)] }, key);
    expect(created.status).toBe(200);
    expect((await confirmOrder(created.body.data.id, key)).status).toBe(200);
    expect(hintsOf("unplaced", "USD").length).toBeGreaterThan(2);
    expect(new Set(hintsOf("unplaced", "USD"))).toEqual(new Set([undefined]));
  });

  it("a wallet keeps the region it was registered with: a wallet opened before its client had a region opens without a hint", async () => {
    // As for every wallet registered before regions existed (schema/migrations/0008_wallet_placement.sql).
    const key = await newClient("registered-before", "apac");
    await env.DB.prepare(
      `INSERT INTO wallets (client_id, currency, created_at, region) VALUES ('registered-before', 'USD', 1, NULL)`,
    ).run();
    await topUp("registered-before", "USD", "100");
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10)] }, key);
    expect(created.status).toBe(200);
    expect(new Set(hintsOf("registered-before", "USD"))).toEqual(new Set([undefined]));
    const row = await env.DB.prepare(`SELECT region FROM wallets WHERE client_id = 'registered-before'`).first<{
      region: string | null;
    }>();
    expect(row!.region).toBeNull();
  });
});
