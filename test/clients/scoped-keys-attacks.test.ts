/**
 * Scoped keys tried as a hostile reseller or a careless operator would: a key without a scope reaches
 * nothing of that scope by any method or spelling of the path, and the allow-list holds against the
 * forms an address can take.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { forgetCachedKeys } from "../../src/http/auth";
import { admin, snapshot } from "../admin-helpers";
import { addClient, call, seedDemo } from "../helpers";

let books = "";
let reader = "";
let writer = "";

beforeAll(async () => {
  await seedDemo();
  await addClient("attack-co", { USD: "100" });
  const issue = async (scopes: string[]) =>
    (await admin("POST", "/admin/clients/attack-co/keys", { scopes })).body.data.apiKey as string;
  books = await issue(["books:read"]);
  reader = await issue(["orders:read"]);
  writer = await issue(["orders:write"]);
});

const ORDER = { reference: "atk-1", wallet: "USD", productList: [{ sku: "DEMO-US-FIXED", quote: 10, quantity: 1 }] };

describe("a key without the scope", () => {
  it("reaches no write route by method, spelling or encoding of its path", async () => {
    const before = await snapshot();
    const results: string[] = [];
    for (const method of ["POST", "PUT", "HEAD", "OPTIONS", "PATCH", "DELETE", "GET"])
      for (const path of [
        "/order/create",
        "/order/create/",
        "/order//create",
        "//order/create",
        "/Order/Create",
        "/order/%63reate",
        "/order%2Fcreate",
        "/order/create?x=1",
        "/order/create;x",
        "/order/./create",
        "/order/confirm",
        "/order/confirm/",
        "/sandbox/wallets/USD/top-ups",
        "/sandbox/wallets/USD/top-ups/",
        "/sandbox/orders/ord_x/expire",
        "/sandbox/webhooks/test",
      ]) {
        const answer = await call(method, path, {
          key: books,
          body: method === "GET" || method === "HEAD" ? undefined : { ...ORDER, amount: "1" },
        });
        if (answer.status < 400 || answer.status >= 500) results.push(`${method} ${path}: ${answer.status}`);
      }
    expect(results).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it("reads no order and no books by any spelling", async () => {
    const results: string[] = [];
    const tries: [string, string][] = [
      [books, "/order/get?reference=atk-1"],
      [books, "/order/get/?reference=atk-1"],
      [books, "/orders"],
      [books, "/orders/"],
      [books, "/orders?reference=atk-1"],
      [writer, "/wallets"],
      [writer, "/wallets/"],
      [writer, "/wallets/USD/ledger"],
      [writer, "/wallets/usd/ledger"],
      [writer, "/wallets/USD/statement?from=0&to=1"],
      [writer, "/wallets/USD/statement/?from=0&to=1"],
      [writer, "/wallets/USD%2Fstatement?from=0&to=1"],
      [reader, "/wallets/USD/statement?from=0&to=1"],
      [reader, "/wallets/USD/ledger"],
    ];
    for (const [key, path] of tries)
      for (const method of ["GET", "HEAD"]) {
        const answer = await call(method, path, { key, headers: { accept: "text/csv" } });
        if (answer.status < 400 || answer.status >= 500) results.push(`${method} ${path}: ${answer.status}`);
      }
    expect(results).toEqual([]);
  });
});

describe("the allow-list against the forms of an address", () => {
  it("holds", async () => {
    const issued = await admin("POST", "/admin/clients/attack-co/keys", {
      allowedIps: ["198.51.100.0/24", "2001:DB8:0:0::/64"],
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const key = issued.body.data.apiKey as string;
    const code = async (headers: Record<string, string>) =>
      (await call("GET", "/wallets", { key, headers })).status === 200 ? "ok" : "refused";
    const cases: [Record<string, string>, string][] = [
      [{ "cf-connecting-ip": "198.51.100.7" }, "ok"],
      [{ "cf-connecting-ip": " 198.51.100.7 " }, "ok"],
      [{ "cf-connecting-ip": "::ffff:198.51.100.7" }, "ok"],
      [{ "cf-connecting-ip": "::FFFF:c633:6407" }, "ok"],
      [{ "cf-connecting-ip": "2001:0db8:0000:0000:0000:0000:0000:0001" }, "ok"],
      [{ "cf-connecting-ip": "2001:DB8::ABCD" }, "ok"],
      [{ "cf-connecting-ip": "2001:db8::1%eth0" }, "refused"],
      [{ "cf-connecting-ip": "198.051.100.7" }, "refused"],
      [{ "cf-connecting-ip": "198.51.100.7, 203.0.113.1" }, "refused"],
      [{ "cf-connecting-ip": "203.0.113.1, 198.51.100.7" }, "refused"],
      [{ "cf-connecting-ip": "203.0.113.1", "x-forwarded-for": "198.51.100.7" }, "refused"],
      [{ "x-forwarded-for": "198.51.100.7", "x-real-ip": "198.51.100.7", "true-client-ip": "198.51.100.7" }, "refused"],
      [{ "cf-connecting-ip": "2001:db8:0:1::1" }, "refused"],
      [{ "cf-connecting-ip": "::198.51.100.7" }, "refused"],
      [{ "cf-connecting-ip": "198.51.100.7/0" }, "refused"],
      [{ "cf-connecting-ip": "3325256711" }, "refused"],
      [{ "cf-connecting-ip": "0xc6336407" }, "refused"],
    ];
    const wrong = [];
    for (const [headers, expected] of cases) {
      const got = await code(headers);
      if (got !== expected) wrong.push(`${JSON.stringify(headers)}: ${got}`);
    }
    expect(wrong).toEqual([]);
  });

  it("refuses entries that are not plain addresses or ranges", async () => {
    const accepted = [];
    for (const entry of [
      "1.2.3.4::",
      "1.2.3.4::/64",
      "198.51.100.7%eth0",
      "fe80::1%25eth0",
      "01.2.3.4",
      "1.2.3.4/ 8",
      "1.2.3.4/+8",
      "0x01020304",
      "1.2.3",
      "::ffff:1.2.3.4",
      "[2001:db8::1]",
      "2001:db8::1/064",
    ]) {
      const answer = await admin("POST", "/admin/clients/attack-co/keys", { allowedIps: [entry] });
      if (answer.status !== 400) accepted.push(`${entry}: ${answer.status} ${JSON.stringify(answer.body.data?.key)}`);
    }
    expect(accepted).toEqual([]);
  });
});

describe("a key narrowed in another isolate", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps its wider scopes and list here for at most API_KEY_CACHE_SECONDS, as a revoked key", async () => {
    const key = (await admin("POST", "/admin/clients/attack-co/keys", {})).body.data.apiKey as string;
    forgetCachedKeys();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const get = () => call("GET", "/wallets", { key, headers: { "cf-connecting-ip": "203.0.113.5" } });
    expect((await get()).status).toBe(200); // cached now
    // What PUT .../access does in another isolate: the row changes, this isolate's cache does not.
    await env.DB.prepare(
      `UPDATE api_keys SET scopes = 'orders:read', allowed_ips = '["198.51.100.0/24"]' WHERE scopes = 'all' AND client_id = 'attack-co'`,
    ).run();
    const staleness = Number(env.API_KEY_CACHE_SECONDS) * 1000;
    expect(staleness).toBe(30_000);
    vi.advanceTimersByTime(staleness - 1);
    expect((await get()).status).toBe(200); // within the stated staleness
    vi.advanceTimersByTime(2);
    expect((await get()).body.code).toBe("ip_not_allowed");
    const inside = await call("GET", "/wallets", { key, headers: { "cf-connecting-ip": "198.51.100.5" } });
    expect(inside.body.code).toBe("insufficient_scope");
  });
});
