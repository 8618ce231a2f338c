import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { call, createOrder, line, seedDemo, topUp } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, snapshot } from "../admin-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
});

describe("exchange rates", () => {
  it("sets a rate, replaces it, lists them; new orders use it", async () => {
    const set = await admin("PUT", "/admin/exchange-rates/USD/CHF", { rate: "0.8800" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await expectConforms("PUT", "/admin/exchange-rates/{base}/{target}", set);
    expect(set.body.data).toMatchObject({ baseCurrency: "USD", targetCurrency: "CHF", rate: 0.88 });
    const row = await env.DB.prepare(`SELECT rate FROM exchange_rates WHERE base_currency = 'USD' AND target_currency = 'CHF'`).first();
    expect(row).toEqual({ rate: "0.88" });
    const replaced = await admin("PUT", "/admin/exchange-rates/USD/EUR", { rate: 0.5 });
    expect(replaced.body.data.rate).toBe(0.5);
    const list = await admin("GET", "/admin/exchange-rates");
    await expectConforms("GET", "/admin/exchange-rates", list);
    expect(list.body.data.rates.map((rate: any) => `${rate.baseCurrency}>${rate.targetCurrency}=${rate.rate}`)).toEqual([
      "EUR>USD=1.08",
      "USD>CHF=0.88",
      "USD>EUR=0.5",
      "USD>GBP=0.79",
      "USD>JPY=150",
    ]);
    // 10 EUR at 0.5 EUR per USD is 20 USD.
    const order = await createOrder({ productList: [line("DEMO-EU-FIXED", 10)] });
    expect(order.body.data.invoice.total).toBe(20);
  });

  it("4xx for bad rates; nothing changes", async () => {
    const before = await snapshot();
    const cases: [string, unknown, string][] = [
      ["/admin/exchange-rates/USD/USD", { rate: "1" }, "invalid_parameters"],
      ["/admin/exchange-rates/USD/XYZ", { rate: "1" }, "invalid_parameters"],
      ["/admin/exchange-rates/usd/EUR", { rate: "1" }, "invalid_parameters"],
      ["/admin/exchange-rates/USD/EUR", { rate: "0" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: -1 }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: "abc" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: "1e3" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: 1e-13 }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: "1", note: "typo" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", {}, "invalid_request_body"],
    ];
    for (const [path, body, code] of cases) {
      const response = await admin("PUT", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.code).toBe(code);
      await expectConforms("PUT", "/admin/exchange-rates/{base}/{target}", response);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("order lookup", () => {
  it("finds any client's order by id or by client and reference, with its stored record", async () => {
    const created = await call("POST", "/order/create", { body: { wallet: "USD", reference: "lookup-1", productList: [line("DEMO-US-RANGE", 12)] } });
    expect(created.status).toBe(200);
    const byId = await admin("GET", `/admin/orders/${created.body.data.id}`);
    expect(byId.status).toBe(200);
    await expectConforms("GET", "/admin/orders/{orderId}", byId);
    expect(byId.body.data).toMatchObject({ clientId: "demo", reference: "lookup-1", state: "created" });
    expect(byId.body.data.order.uid).toBe(created.body.data.id);
    expect(byId.body.data.record.id).toBe(created.body.data.id);
    const byReference = await admin("GET", "/admin/orders?clientId=demo&reference=lookup-1");
    expect(byReference.body.data).toEqual(byId.body.data);
  });

  it("404 for unknown orders, 400 without the query", async () => {
    for (const path of [`/admin/orders/ord_${"0".repeat(64)}`, "/admin/orders/ord_nope", "/admin/orders/123", "/admin/orders?clientId=demo&reference=never"]) {
      const response = await admin("GET", path);
      expect(response.status, path).toBe(404);
      expect(response.body.code).toBe("order_not_found");
    }
    for (const query of ["", "?clientId=demo", "?reference=x", "?clientId=bad%20id&reference=x"]) {
      const response = await admin("GET", `/admin/orders${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe("invalid_parameters");
      await expectConforms("GET", "/admin/orders", response);
    }
  });
});

describe("GET /admin/audit", () => {
  it("lists operator actions oldest first, by target, a page at a time", async () => {
    await admin("PUT", "/admin/exchange-rates/EUR/GBP", { rate: "0.85" });
    await admin("PUT", "/admin/exchange-rates/EUR/GBP", { rate: "0.86" });
    const byTarget = await admin("GET", "/admin/audit?target=rate:EUR>GBP");
    expect(byTarget.status).toBe(200);
    await expectConforms("GET", "/admin/audit", byTarget);
    expect(byTarget.body.data.entries.map((entry: any) => [entry.action, entry.details.rate])).toEqual([
      ["exchange_rate.set", "0.85"],
      ["exchange_rate.set", "0.86"],
    ]);
    const first = await admin("GET", "/admin/audit?limit=1");
    expect(first.body.data.entries).toHaveLength(1);
    const second = await admin("GET", `/admin/audit?limit=1&after=${first.body.data.next}`);
    expect(second.body.data.entries[0].id).toBeGreaterThan(first.body.data.entries[0].id);
    expect((await admin("GET", "/admin/audit?after=x")).status).toBe(400);
  });

  it("is append-only", async () => {
    await expect(env.DB.prepare(`UPDATE audit_log SET actor = 'someone else'`).run()).rejects.toThrow(/append-only/);
    await expect(env.DB.prepare(`DELETE FROM audit_log`).run()).rejects.toThrow(/append-only/);
  });
});

describe("dead-lettered webhooks", () => {
  beforeEach(() => {
    for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function deadLetter(eventId: string, clientId = "demo"): Promise<number> {
    const message = {
      clientId,
      url: "https://hooks.example.com/orders",
      event: { id: eventId, type: "order.confirmed", createdAt: 1, data: { orderId: `ord_${"1".repeat(64)}`, state: "confirmed", reference: "r" } },
    };
    const row = await env.DB.prepare(
      `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES (?1, ?2, ?3, ?4, 8, 'HTTP 503', ?5) RETURNING id`,
    )
      .bind(eventId, clientId, message.url, JSON.stringify(message), Date.now())
      .first<{ id: number }>();
    return row!.id;
  }

  it("lists them newest first and replays one once", async () => {
    const older = await deadLetter("evt_older");
    const newer = await deadLetter("evt_newer");
    const list = await admin("GET", "/admin/webhooks/dead-letters");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    await expectConforms("GET", "/admin/webhooks/dead-letters", list);
    expect(list.body.data.deadLetters.map((letter: { id: number }) => letter.id)).toEqual([newer, older]);
    const replayed = await admin("POST", `/admin/webhooks/dead-letters/${older}/replay`);
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    await expectConforms("POST", "/admin/webhooks/dead-letters/{id}/replay", replayed);
    expect(replayed.body.data.deadLetter).toMatchObject({ id: older, eventId: "evt_older", replayedAt: expect.any(Number) });
    const again = await admin("POST", `/admin/webhooks/dead-letters/${older}/replay`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("dead_letter_already_replayed");
    const pending = await admin("GET", "/admin/webhooks/dead-letters?status=pending&clientId=demo");
    expect(pending.body.data.deadLetters.map((letter: { id: number }) => letter.id)).toEqual([newer]);
    const audit = await admin("GET", `/admin/audit?target=dead_letter:${older}`);
    expect(audit.body.data.entries.map((entry: { action: string }) => entry.action)).toEqual(["webhook.dead_letter.replay"]);
  });

  it("404 for an unknown one, 400 for a malformed id or query", async () => {
    const before = await snapshot();
    const unknown = await admin("POST", "/admin/webhooks/dead-letters/999999/replay");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("dead_letter_not_found");
    for (const path of ["/admin/webhooks/dead-letters/abc/replay", "/admin/webhooks/dead-letters/0/replay"]) {
      expect((await admin("POST", path)).status, path).toBe(400);
    }
    for (const query of ["status=lost", "limit=0", "limit=201", "before=x", "clientId=bad%20id"]) {
      expect((await admin("GET", `/admin/webhooks/dead-letters?${query}`)).status, query).toBe(400);
    }
    expect(await snapshot()).toEqual(before);
  });
});
