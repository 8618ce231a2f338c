import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addClient, balanceOf, call, ledgerSumOf, wallet } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, auditActions, snapshot } from "../admin-helpers";

async function ledgerOf(clientId: string, currency: string) {
  return wallet(clientId, currency).entries(0, 1000);
}

describe("POST /admin/wallets/:clientId/:currency/top-ups", () => {
  beforeAll(async () => {
    await addClient("topped");
  });

  it("credits the wallet and registers it; a replayed idempotency key adds nothing", async () => {
    const first = await admin("POST", "/admin/wallets/topped/USD/top-ups", {
      amount: "100.10",
      idempotencyKey: "t-1",
      reason: "opening",
    });
    expect(first.status).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", first);
    expect(first.body.message).toBe("Wallet topped up");
    expect(first.body.data).toMatchObject({ clientId: "topped", currency: "USD", balance: 100.1, replayed: false });
    expect(first.body.data.entry).toMatchObject({
      kind: "top_up",
      amount: 100.1,
      balanceAfter: 100.1,
      reason: "opening",
      key: "top-up:t-1",
    });
    const auditBefore = (await auditActions()).length;
    const replay = await admin("POST", "/admin/wallets/topped/USD/top-ups", {
      amount: 100.1,
      idempotencyKey: "t-1",
      reason: "opening",
    });
    expect(replay.status).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", replay);
    expect(replay.body.message).toBe("Top-up already applied");
    expect(replay.body.data.replayed).toBe(true);
    expect(replay.body.data.entry).toEqual(first.body.data.entry);
    expect(await balanceOf("topped", "USD")).toBe("100.1");
    expect(await ledgerOf("topped", "USD")).toHaveLength(1);
    expect((await auditActions()).length).toBe(auditBefore);
    const registered = await env.DB.prepare(`SELECT currency FROM wallets WHERE client_id = 'topped'`).all();
    expect(registered.results).toEqual([{ currency: "USD" }]);
  });

  it("a replay writes the audit row the first answer did not get to write, once", async () => {
    const first = await admin("POST", "/admin/wallets/topped/USD/top-ups", {
      amount: "1",
      idempotencyKey: "t-audit",
      reason: "x",
    });
    const seq = first.body.data.entry.seq;
    const rows = () =>
      env.DB.prepare(
        `SELECT COUNT(*) AS n FROM audit_log WHERE target = 'wallet:topped:USD' AND json_extract(details, '$.seq') = ?1`,
      )
        .bind(seq)
        .first<{ n: number }>();
    expect((await rows())!.n).toBe(1);
    // As if the Worker had died between the wallet's answer and the audit insert: a fresh table without the row.
    await env.DB.exec(`ALTER TABLE audit_log RENAME TO audit_log_kept`);
    await env.DB.exec(`CREATE TABLE audit_log AS SELECT * FROM audit_log_kept WHERE 0`);
    try {
      await admin("POST", "/admin/wallets/topped/USD/top-ups", { amount: "1", idempotencyKey: "t-audit", reason: "x" });
      await admin("POST", "/admin/wallets/topped/USD/top-ups", { amount: "1", idempotencyKey: "t-audit", reason: "x" });
      expect((await rows())!.n).toBe(1);
    } finally {
      await env.DB.exec(`DROP TABLE audit_log`);
      await env.DB.exec(`ALTER TABLE audit_log_kept RENAME TO audit_log`);
    }
  });

  it("409 for the same key with another amount; nothing changes", async () => {
    await admin("POST", "/admin/wallets/topped/EUR/top-ups", { amount: "5", idempotencyKey: "t-2", reason: "x" });
    const before = await snapshot();
    const ledger = await ledgerOf("topped", "EUR");
    const conflict = await admin("POST", "/admin/wallets/topped/EUR/top-ups", {
      amount: "6",
      idempotencyKey: "t-2",
      reason: "x",
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe("idempotency_conflict");
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", conflict);
    expect(await snapshot()).toEqual(before);
    expect(await ledgerOf("topped", "EUR")).toEqual(ledger);
  });

  it("409 for a key already used by the other kind of posting, either way round; nothing changes", async () => {
    await admin("POST", "/admin/wallets/topped/EUR/top-ups", { amount: "5", idempotencyKey: "t-kind", reason: "x" });
    await admin("POST", "/admin/wallets/topped/EUR/adjustments", {
      amount: "1",
      idempotencyKey: "a-kind",
      reason: "x",
    });
    const before = await snapshot();
    const ledger = await ledgerOf("topped", "EUR");
    const balance = await wallet("topped", "EUR").balance();
    const asAdjustment = await admin("POST", "/admin/wallets/topped/EUR/adjustments", {
      amount: "5",
      idempotencyKey: "t-kind",
      reason: "x",
    });
    const asTopUp = await admin("POST", "/admin/wallets/topped/EUR/top-ups", {
      amount: "1",
      idempotencyKey: "a-kind",
      reason: "x",
    });
    for (const conflict of [asAdjustment, asTopUp]) {
      expect(conflict.status, JSON.stringify(conflict.body)).toBe(409);
      expect(conflict.body).toMatchObject({
        code: "idempotency_conflict",
        details: { idempotencyKey: expect.stringMatching(/-kind$/) },
      });
    }
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/adjustments", asAdjustment);
    expect(await snapshot()).toEqual(before);
    expect(await ledgerOf("topped", "EUR")).toEqual(ledger);
    expect(await wallet("topped", "EUR").balance()).toBe(balance);
  });

  it("4xx for bad input; no wallet, ledger entry or audit row appears", async () => {
    const before = await snapshot();
    const usdLedger = await ledgerOf("topped", "USD");
    const cases: [string, unknown, number, string][] = [
      ["/admin/wallets/nobody/USD/top-ups", { amount: "1", idempotencyKey: "k", reason: "r" }, 404, "client_not_found"],
      [
        "/admin/wallets/topped/XXX/top-ups",
        { amount: "1", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_parameters",
      ],
      [
        "/admin/wallets/topped/usd/top-ups",
        { amount: "1", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_parameters",
      ],
      [
        "/admin/wallets/topped/JPY/top-ups",
        { amount: "1.5", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/topped/KWD/top-ups",
        { amount: "1.0001", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/topped/USD/top-ups",
        { amount: "0", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/topped/USD/top-ups",
        { amount: "-5", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/topped/USD/top-ups",
        { amount: -5, idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/topped/USD/top-ups",
        { amount: "1e3", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/topped/USD/top-ups",
        { amount: 1e300, idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      ["/admin/wallets/topped/USD/top-ups", { amount: "1", reason: "r" }, 400, "invalid_request_body"],
      ["/admin/wallets/topped/USD/top-ups", { amount: "1", idempotencyKey: "k" }, 400, "invalid_request_body"],
      [
        "/admin/wallets/topped/USD/top-ups",
        { amount: "1", idempotencyKey: "k", reason: "r", extra: 1 },
        400,
        "invalid_request_body",
      ],
    ];
    for (const [path, body, status, code] of cases) {
      const response = await admin("POST", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(response.body.code).toBe(code);
      await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", response);
    }
    expect(await snapshot()).toEqual(before);
    for (const currency of ["JPY", "KWD"]) expect(await ledgerOf("topped", currency)).toEqual([]);
    expect(await ledgerOf("topped", "USD")).toEqual(usdLedger);
  });
});

describe("POST /admin/wallets/:clientId/:currency/adjustments", () => {
  beforeAll(async () => {
    await addClient("adjusted", { USD: "50" });
  });

  it("credits with a positive amount, as an adjustment entry with its reason, once per key", async () => {
    const response = await admin("POST", "/admin/wallets/adjusted/USD/adjustments", {
      amount: "2.5",
      idempotencyKey: "a-1",
      reason: "goodwill",
    });
    expect(response.status).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/adjustments", response);
    expect(response.body.data.entry).toMatchObject({
      kind: "adjustment",
      amount: 2.5,
      balanceAfter: 52.5,
      reason: "goodwill",
    });
    const replay = await admin("POST", "/admin/wallets/adjusted/USD/adjustments", {
      amount: "2.50",
      idempotencyKey: "a-1",
      reason: "goodwill",
    });
    expect(replay.body.data.replayed).toBe(true);
    expect(await balanceOf("adjusted", "USD")).toBe("52.5");
    expect(await auditActions()).toContain("wallet.adjustment");
  });

  it("debits with a negative amount, never below zero (400, nothing changes)", async () => {
    const response = await admin("POST", "/admin/wallets/adjusted/USD/adjustments", {
      amount: "-12.5",
      idempotencyKey: "a-2",
      reason: "correction",
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/adjustments", response);
    expect(response.body.data.entry).toMatchObject({ kind: "adjustment", amount: -12.5, balanceAfter: 40 });
    const before = await snapshot();
    const ledger = await ledgerOf("adjusted", "USD");
    const tooMuch = await admin("POST", "/admin/wallets/adjusted/USD/adjustments", {
      amount: "-40.01",
      idempotencyKey: "a-3",
      reason: "too much",
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toMatchObject({ code: "adjustment_below_zero", details: { balance: 40 } });
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/adjustments", tooMuch);
    expect(await ledgerOf("adjusted", "USD")).toEqual(ledger);
    expect(await snapshot()).toEqual(before);
    const toZero = await admin("POST", "/admin/wallets/adjusted/USD/adjustments", {
      amount: -40,
      idempotencyKey: "a-4",
      reason: "close",
    });
    expect(toZero.body.data.balance).toBe(0);
    expect(await ledgerSumOf("adjusted", "USD")).toBe("0");
  });

  it("4xx for bad input or an unknown wallet; nothing changes", async () => {
    const before = await snapshot();
    const ledger = await ledgerOf("adjusted", "USD");
    const cases: [string, unknown, number, string][] = [
      [
        "/admin/wallets/adjusted/EUR/adjustments",
        { amount: "1", idempotencyKey: "k", reason: "r" },
        404,
        "wallet_unknown",
      ],
      [
        "/admin/wallets/nobody/USD/adjustments",
        { amount: "1", idempotencyKey: "k", reason: "r" },
        404,
        "client_not_found",
      ],
      [
        "/admin/wallets/adjusted/USD/adjustments",
        { amount: "0", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/adjusted/USD/adjustments",
        { amount: "-0.001", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/adjusted/USD/adjustments",
        { amount: "1", idempotencyKey: "k", reason: "" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/adjusted/USD/adjustments",
        { amount: "abc", idempotencyKey: "k", reason: "r" },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/wallets/adjusted/USD/adjustments",
        { amount: "3", idempotencyKey: "a-1", reason: "same key, another amount" },
        409,
        "idempotency_conflict",
      ],
    ];
    for (const [path, body, status, code] of cases) {
      const response = await admin("POST", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(response.body.code).toBe(code);
      await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/adjustments", response);
    }
    expect(await snapshot()).toEqual(before);
    expect(await ledgerOf("adjusted", "USD")).toEqual(ledger);
  });
});

describe("GET /admin/wallets/:clientId/:currency and its ledger", () => {
  beforeAll(async () => {
    await addClient("ledgered");
    for (let index = 1; index <= 5; index += 1) {
      await admin("POST", "/admin/wallets/ledgered/GBP/top-ups", {
        amount: String(index),
        idempotencyKey: `l-${index}`,
        reason: `top-up ${index}`,
      });
    }
  });

  it("answers the balance; 404 for an unknown wallet or client", async () => {
    const response = await admin("GET", "/admin/wallets/ledgered/GBP");
    expect(response.status).toBe(200);
    await expectConforms("GET", "/admin/wallets/{clientId}/{currency}", response);
    expect(response.body.data).toEqual({ clientId: "ledgered", currency: "GBP", balance: 15 });
    expect((await admin("GET", "/admin/wallets/ledgered/USD")).body.code).toBe("wallet_unknown");
    expect((await admin("GET", "/admin/wallets/nobody/GBP")).body.code).toBe("client_not_found");
  });

  it("lists the ledger oldest first, a page at a time", async () => {
    const first = await admin("GET", "/admin/wallets/ledgered/GBP/ledger?limit=2");
    expect(first.status).toBe(200);
    await expectConforms("GET", "/admin/wallets/{clientId}/{currency}/ledger", first);
    expect(first.body.data.entries.map((entry: { amount: number }) => entry.amount)).toEqual([1, 2]);
    const pages = [first.body.data.entries];
    let next = first.body.data.next;
    while (next !== null) {
      const page = await admin("GET", `/admin/wallets/ledgered/GBP/ledger?limit=2&after=${next}`);
      pages.push(page.body.data.entries);
      next = page.body.data.next;
    }
    expect(pages.flat().map((entry: { balanceAfter: number }) => entry.balanceAfter)).toEqual([1, 3, 6, 10, 15]);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    const all = await admin("GET", "/admin/wallets/ledgered/GBP/ledger");
    expect(all.body.data.next).toBeNull();
    expect(all.body.data.entries).toHaveLength(5);
    for (const query of ["limit=0", "limit=501", "after=-1", "after=x"]) {
      const response = await admin("GET", `/admin/wallets/ledgered/GBP/ledger?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe("invalid_parameters");
    }
  });
});

describe("GET /wallets", () => {
  it("answers the calling client's balances by currency, and only its own", async () => {
    const key = await addClient("mine", { USD: "10.5", EUR: "3", JPY: "1000" });
    await addClient("theirs", { USD: "99" });
    const response = await call("GET", "/wallets", { key });
    expect(response.status).toBe(200);
    await expectConforms("GET", "/wallets", response);
    expect(response.body).toEqual({
      message: "Wallets",
      data: {
        wallets: [
          { currency: "EUR", balance: 3 },
          { currency: "JPY", balance: 1000 },
          { currency: "USD", balance: 10.5 },
        ],
      },
    });
  });
});
