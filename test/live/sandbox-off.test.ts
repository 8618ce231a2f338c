/**
 * In live (the vitest project "live") the sandbox's helpers do not exist: every path under /sandbox/ is 404
 * route_not_found whatever the method or key, as a path with no route, and nothing changes; the create
 * header Sandbox-Outcome is 400.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, line, seedDemo, topUp } from "../helpers";
import { admin } from "../admin-helpers";
import { expectError } from "../order-helpers";

describe("the sandbox helpers in live", () => {
  it("answer 404 route_not_found for every method, with or without a live key, and change nothing", async () => {
    await seedDemo();
    const created = await admin("POST", "/admin/clients", { id: "live-helper", name: "Live" });
    const liveKey: string = created.body.data.apiKey;
    const requests: [string, string, unknown][] = [
      ["POST", "/sandbox/wallets/USD/top-ups", { amount: "100", idempotencyKey: "k" }],
      ["GET", "/sandbox/wallets/USD/top-ups", undefined],
      ["POST", `/sandbox/orders/ord_${"0".repeat(64)}/expire`, undefined],
      ["POST", "/sandbox/webhooks/test", { type: "order.failed", url: "https://hooks.example.com/x" }],
      ["POST", "/sandbox/nope", undefined],
    ];
    for (const [method, path, body] of requests) {
      for (const key of [liveKey, null, "sk_test_demo"]) {
        const answer = await call(method, path, { key, body });
        expect([answer.status, answer.body], `${method} ${path} ${key}`).toEqual([
          404,
          { message: "Not Found", code: "route_not_found" },
        ]);
        expect(answer.headers.get("x-request-id")).toBeTruthy();
      }
    }
    expect((await call("GET", "/wallets", { key: liveKey })).body.data.wallets).toEqual([]);
  });

  it("the create header Sandbox-Outcome is 400 sandbox_outcome_in_live, whatever its value, and no order is made", async () => {
    await seedDemo();
    const created = await admin("POST", "/admin/clients", { id: "live-outcome", name: "Live" });
    const key: string = created.body.data.apiKey;
    await env.DB.prepare(`INSERT INTO wallets (client_id, currency, created_at) VALUES ('live-outcome', 'USD', ?1)`)
      .bind(Date.now())
      .run();
    await topUp("live-outcome", "USD", "100");
    const body = { productList: [line("DEMO-EU-FIXED", 10, 1, "fixed")], wallet: "USD", reference: "live-outcome-1" };
    for (const value of ["failed", "successful", "nonsense"]) {
      const answer = await call("POST", "/order/create", { key, body, headers: { "sandbox-outcome": value } });
      expectError(answer, 400, "The Sandbox-Outcome header is accepted only in the sandbox", "sandbox_outcome_in_live");
    }
    // The same create without the header is an ordinary live order: the reference was never used.
    const plain = await call("POST", "/order/create", { key, body });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.headers.get("idempotent-replayed")).toBeNull();
  });

  it("are in the document all the same, marked sandbox only (one document for both environments)", async () => {
    const document = await call("GET", "/openapi.json", { key: null });
    expect(document.body.paths["/sandbox/wallets/{currency}/top-ups"].post.description).toMatch(/^Sandbox only/);
  });
});
