/**
 * Real error answers against the document: each call below provokes one code, and its body (with its
 * typed `details`) must match the schema the document gives that code for that route: every code with
 * details but two (see the last test).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { openOrder } from "../../src/wallets/postings";
import { WalletStore } from "../../src/wallets/wallet-store";
import { describe, expect, it } from "vitest";
import { ERROR_DETAILS } from "../../src/kernel/failure-details";
import type { ErrorCode } from "../../src/http/errors";
import { keepDeadLetters } from "../../src/webhooks/dead-letter-store";
import { ADMIN_TOKEN, exportSignature, madeOperator } from "../admin-helpers";
import { topUpKey } from "../../src/wallets/ledger-keys";
import { freshClient } from "../order-helpers";
import { addClient, call, createOrder, confirmOrder, line, seedDemo, topUp, wallet, type ApiCall } from "../helpers";
import type { LedgerExport } from "../../src/wallets/ledger-backup";
import { addCodes, addProduct, setDeal } from "../order-helpers";
import { expectConforms } from "./conformance";

const seen = new Set<ErrorCode>();

async function expectError(method: string, template: string, answer: ApiCall, code: ErrorCode): Promise<void> {
  expect(answer.body.code, JSON.stringify(answer.body)).toBe(code);
  await expectConforms(method, template, answer);
  seen.add(code);
}

const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>, rawBody?: string) =>
  call(method, path, { key: ADMIN_TOKEN, body, headers, rawBody });

describe("real error answers match the document, details included", () => {
  it("client routes", async () => {
    await seedDemo();
    const create = (body: Record<string, unknown>) => createOrder(body);
    await expectError("POST", "/order/create", await create({ productList: [] }), "product_list_malformed");
    await expectError(
      "GET",
      "/wallets",
      await call("GET", "/wallets", { key: "sk_live_from_the_other_environment" }),
      "wrong_environment",
    );
    const outcome = await call("POST", "/order/create", {
      body: { productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference: "errors-outcome" },
      headers: { "sandbox-outcome": "nope" },
    });
    await expectError("POST", "/order/create", outcome, "invalid_sandbox_outcome");
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 10), line("DEMO-US-RANGE", 11)] }),
      "product_list_malformed",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 10, 6)] }),
      "product_list_too_big",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 1)] }),
      "quote_out_of_range",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 10), line("NOPE", 10)] }),
      "product_not_found",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-SOLDOUT", 10)] }),
      "out_of_stock",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 10, 1, "bundle")] }),
      "quote_mismatch",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 10)], wallet: "usd" }),
      "wallet_not_found",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-GB-FIXED", 20)], wallet: "EUR" }),
      "exchange_not_supported",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 500, 5)] }),
      "insufficient_funds",
    );
    await expectError(
      "POST",
      "/order/create",
      await create({ productList: [line("DEMO-US-RANGE", 10)], webhookUrl: "ftp://hooks.example/x" }),
      "invalid_webhook_url",
    );
    await expectError("POST", "/order/create", await call("POST", "/order/create", { rawBody: "{" }), "malformed_json");
    await expectError(
      "POST",
      "/order/create",
      await call("POST", "/order/create", { rawBody: `{"x":"${"a".repeat(70_000)}"}` }),
      "payload_too_large",
    );

    // Two open orders that reserve codes, and a balance that covers each alone but not both.
    const holderKey = await addClient(`errors-holds-${crypto.randomUUID().slice(0, 8)}`, { USD: "20" });
    expect((await createOrder({ productList: [line("DEMO-EU-FIXED", 10)] }, holderKey)).status).toBe(200);
    await expectError(
      "POST",
      "/order/create",
      await createOrder({ productList: [line("DEMO-EU-FIXED", 10)] }, holderKey),
      "balance_held",
    );

    // A client whose orders cost nothing (a 100 % deal), past MAX_HELD_CODES open codes in its wallet.
    const freeId = `errors-free-${crypto.randomUUID().slice(0, 8)}`;
    const freeKey = await addClient(freeId, { USD: "0.01" });
    await addProduct({
      sku: "ERRORS-CAP",
      productType: "fixed",
      currency: "USD",
      quotes: ["10"],
      supplier: "inventory",
    });
    await addCodes("ERRORS-CAP", "10", Number(env.MAX_HELD_CODES) + 5);
    await setDeal(freeId, "ERRORS-CAP", { discount: ["100", "percentage"] });
    for (let held = 0; held < Number(env.MAX_HELD_CODES); held += 5)
      expect(
        (await createOrder({ productList: [line("ERRORS-CAP", 10, 5, "fixed")] }, freeKey)).body.code,
      ).toBeUndefined();
    await expectError(
      "POST",
      "/order/create",
      await createOrder({ productList: [line("ERRORS-CAP", 10, 5, "fixed")] }, freeKey),
      "held_codes_limit",
    );

    // A client whose wallet already counts MAX_OPEN_ORDERS open orders (placed in it directly).
    const busyId = `errors-busy-${crypto.randomUUID().slice(0, 8)}`;
    const busyKey = await addClient(busyId, { USD: "100" });
    await runInDurableObject(wallet(busyId, "USD"), (_instance, state) => {
      const store = new WalletStore(state.storage);
      const open = { maxOpen: Number(env.MAX_OPEN_ORDERS), backoffStep: 20 };
      for (let at = 0; at < open.maxOpen; at += 1)
        openOrder(store, { orderId: `ord_busy_${at}`, amount: "0", until: Date.now() + 600_000, open }, Date.now());
    });
    await expectError(
      "POST",
      "/order/create",
      await createOrder({ productList: [line("DEMO-US-RANGE", 10)] }, busyKey),
      "open_orders_limit",
    );

    await topUp("demo", "USD", "100");
    const body = { productList: [line("DEMO-US-RANGE", 10)], wallet: "USD", reference: "errors-ref" };
    const created = await call("POST", "/order/create", { body });
    expect(created.status).toBe(200);
    await expectError(
      "POST",
      "/order/create",
      await call("POST", "/order/create", { body: { ...body, productList: [line("DEMO-US-RANGE", 11)] } }),
      "reference_already_used",
    );
    expect((await confirmOrder(created.body.data.id)).status).toBe(200);
    await expectError("PUT", "/order/confirm", await confirmOrder(created.body.data.id), "order_already_confirmed");
    await expectError(
      "PUT",
      "/order/confirm",
      await call("PUT", "/order/confirm", { rawBody: "" }),
      "invalid_order_id",
    );
    await expectError("GET", "/order/get", await call("GET", "/order/get"), "invalid_order_query");
    // The account webhook endpoints (issue 44): an unknown one, and the eleventh of a client.
    await expectError(
      "DELETE",
      "/webhook-endpoints/{id}",
      await call("DELETE", "/webhook-endpoints/we_00000000000000000000000000000000"),
      "webhook_endpoint_not_found",
    );
    const { key: full } = await freshClient();
    const endpoint = { url: "http://127.0.0.1:9797/hooks", eventTypes: ["wallet.low"] };
    for (let index = 0; index < 10; index += 1) await call("POST", "/webhook-endpoints", { key: full, body: endpoint });
    await expectError(
      "POST",
      "/webhook-endpoints",
      await call("POST", "/webhook-endpoints", { key: full, body: endpoint }),
      "webhook_endpoint_limit",
    );
  });

  it("operator routes", async () => {
    await seedDemo();
    await expectError(
      "GET",
      "/admin/clients/{clientId}",
      await admin("GET", "/admin/clients/nobody"),
      "client_not_found",
    );
    await expectError(
      "GET",
      "/admin/clients/{clientId}",
      await admin("GET", "/admin/clients/no%20body"),
      "invalid_parameters",
    );
    await expectError(
      "POST",
      "/admin/clients",
      await admin("POST", "/admin/clients", { id: "demo", name: "Again" }),
      "client_exists",
    );
    await expectError(
      "POST",
      "/admin/clients",
      await admin("POST", "/admin/clients", { name: "" }),
      "invalid_request_body",
    );
    await expectError(
      "POST",
      "/admin/clients/{clientId}/keys/{keyId}/revoke",
      await admin("POST", "/admin/clients/demo/keys/key_0123456789abcdef/revoke"),
      "api_key_not_found",
    );
    // Scoped keys: a key without the route's scope, from outside its allow-list, and a revoked key's access.
    const scoped = await admin("POST", "/admin/clients/demo/keys", {
      scopes: ["books:read"],
      allowedIps: ["198.51.100.0/24"],
    });
    const scopedKey = scoped.body.data.apiKey as string;
    const from = { "cf-connecting-ip": "198.51.100.1" };
    await expectError(
      "GET",
      "/order/get",
      await call("GET", "/order/get?reference=x", { key: scopedKey, headers: from }),
      "insufficient_scope",
    );
    await expectError("GET", "/wallets", await call("GET", "/wallets", { key: scopedKey }), "ip_not_allowed");
    const scopedKeyId = scoped.body.data.key.keyId as string;
    await admin("POST", `/admin/clients/demo/keys/${scopedKeyId}/revoke`);
    await expectError(
      "PUT",
      "/admin/clients/{clientId}/keys/{keyId}/access",
      await admin("PUT", `/admin/clients/demo/keys/${scopedKeyId}/access`, { scopes: "all", allowedIps: null }),
      "api_key_revoked",
    );
    await expectError("GET", "/admin/products/{sku}", await admin("GET", "/admin/products/NOPE"), "sku_not_found");
    await expectError(
      "GET",
      "/admin/wallets/{clientId}/{currency}",
      await admin("GET", "/admin/wallets/demo/GBP"),
      "wallet_unknown",
    );
    await expectError(
      "DELETE",
      "/admin/clients/{clientId}/deals/{sku}",
      await admin("DELETE", "/admin/clients/demo/deals/DEMO-US-RANGE"),
      "deal_not_found",
    );
    await expectError(
      "PUT",
      "/admin/exchange-rates/{base}/{target}",
      await admin("PUT", "/admin/exchange-rates/USD/USD", { rate: "1" }),
      "invalid_parameters",
    );

    const top = { amount: "5", idempotencyKey: "errors-top-up", reason: "test" };
    expect((await admin("POST", "/admin/wallets/demo/USD/top-ups", top)).status).toBe(200);
    await expectError(
      "POST",
      "/admin/wallets/{clientId}/{currency}/top-ups",
      await admin("POST", "/admin/wallets/demo/USD/top-ups", { ...top, amount: "6" }),
      "idempotency_conflict",
    );
    // The wallet has entries: a restore of other entries (here: only its first) is refused. Each export is
    // signed as this deployment signs one (GET …/export), so that the check after the signature answers.
    const signed = async (backup: LedgerExport) => ({ ...backup, signature: await exportSignature(backup) });
    const ledger = (await admin("GET", "/admin/wallets/demo/USD/export")).body.data;
    expect(ledger.entries.length).toBeGreaterThan(0);
    await expectError(
      "POST",
      "/admin/wallets/{clientId}/{currency}/restore",
      await admin(
        "POST",
        "/admin/wallets/demo/USD/restore",
        await signed({
          ...ledger,
          entries: ledger.entries.slice(0, 1),
          balance: ledger.entries[0].balanceAfter,
        }),
      ),
      "wallet_not_empty",
    );
    await expectError(
      "POST",
      "/admin/wallets/{clientId}/{currency}/restore",
      await admin(
        "POST",
        "/admin/wallets/demo/EUR/restore",
        await signed({ ...ledger, currency: "EUR", balance: "1" }),
      ),
      "ledger_chain_broken",
    );
    await expectError(
      "POST",
      "/admin/wallets/{clientId}/{currency}/adjustments",
      await admin("POST", "/admin/wallets/demo/EUR/adjustments", {
        amount: "-1000000",
        idempotencyKey: "errors-debit",
        reason: "test",
      }),
      "adjustment_below_zero",
    );

    const codes = "/admin/products/DEMO-EU-FIXED/codes";
    await expectError(
      "POST",
      "/admin/products/{sku}/codes",
      await admin("POST", codes, undefined, { "content-type": "text/plain" }, "x"),
      "unsupported_media_type",
    );
    await expectError(
      "POST",
      "/admin/products/{sku}/codes",
      await admin("POST", codes, undefined, { "content-type": "text/csv" }, "value,pin\n10,A\n"),
      "invalid_request_body",
    );
    await expectError(
      "POST",
      "/admin/products/{sku}/codes",
      await admin("POST", codes, {
        codes: [
          { value: "10", pin: "DUP-1", link: "https://r.example/1" },
          { value: "10", pin: "DUP-1", link: "https://r.example/1" },
        ],
      }),
      "duplicate_codes",
    );

    await expectError(
      "PUT",
      "/admin/products/{sku}",
      await admin("PUT", "/admin/products/DEMO-EU-FIXED", {
        productType: "fixed",
        name: "EU",
        currency: "USD",
        country: "DE",
        region: "Europe",
        quotes: ["10"],
        supplier: "inventory",
      }),
      "sku_has_unsold_codes",
    );

    await expectError(
      "POST",
      "/admin/webhooks/dead-letters/{id}/replay",
      await admin("POST", "/admin/webhooks/dead-letters/99/replay"),
      "dead_letter_not_found",
    );
    const message = {
      clientId: "demo",
      url: "https://hooks.demo.test/orders",
      event: {
        id: "evt_errors",
        type: "order.failed",
        createdAt: 1,
        data: { orderId: "ord_1", state: "failed", reference: "r" },
      },
    };
    const raw = { id: "m1", timestamp: new Date(), body: message, attempts: 1, ack: () => {}, retry: () => {} };
    await keepDeadLetters(
      {
        queue: "webhooks-dlq",
        messages: [raw],
        ackAll: () => {},
        retryAll: () => {},
      } as unknown as MessageBatch<unknown>,
      env,
    );
    const [kept] = (await admin("GET", "/admin/webhooks/dead-letters")).body.data.deadLetters;
    expect((await admin("POST", `/admin/webhooks/dead-letters/${kept.id}/replay`)).status).toBe(200);
    await expectError(
      "POST",
      "/admin/webhooks/dead-letters/{id}/replay",
      await admin("POST", `/admin/webhooks/dead-letters/${kept.id}/replay`),
      "dead_letter_already_replayed",
    );

    const viewer = (await admin("POST", "/admin/operators", { name: "Vera Viewer", role: "viewer" })).body.data;
    const asViewer = await call("POST", "/admin/clients", { key: viewer.token, body: { name: "Not allowed" } });
    await expectError("POST", "/admin/clients", asViewer, "forbidden");
    expect(asViewer.body.details).toEqual({ role: "viewer", needed: "admin" });
    await expectError(
      "POST",
      "/admin/operators/{operatorId}/revoke",
      await admin("POST", "/admin/operators/opr_0000000000000000/revoke"),
      "operator_not_found",
    );
    expect((await admin("POST", `/admin/operators/${viewer.operator.id}/revoke`)).status).toBe(200);
    await expectError(
      "POST",
      "/admin/operators/{operatorId}/role",
      await admin("POST", `/admin/operators/${viewer.operator.id}/role`, { role: "admin" }),
      "operator_revoked",
    );

    // Dual control: a request the break-glass token asked for, decided by nobody allowed, then expired.
    expect((await admin("PUT", "/admin/approval-limits/CHF", { limit: "10" })).status).toBe(200);
    const asked = await admin("POST", "/admin/wallets/demo/CHF/top-ups", {
      amount: "11",
      idempotencyKey: "errors-dual",
      reason: "above the limit",
    });
    const requestId = asked.body.data.request.id as number;
    await expectError(
      "POST",
      "/admin/posting-requests/{id}/approve",
      await admin("POST", "/admin/posting-requests/999999/approve"),
      "posting_request_not_found",
    );
    await expectError(
      "POST",
      "/admin/posting-requests/{id}/approve",
      await admin("POST", `/admin/posting-requests/${requestId}/approve`),
      "decider_not_allowed",
    );
    await env.DB.prepare(`UPDATE posting_requests SET expires_at = 1 WHERE id = ?1`).bind(requestId).run();
    // Another person than the break-glass token: an admin made by an admin it made days ago, itself days old.
    const maker = await madeOperator("Errors Maker", "admin", 10);
    const second = await madeOperator("Second Pair", "admin", 5, maker.token);
    await expectError(
      "POST",
      "/admin/posting-requests/{id}/reject",
      await call("POST", `/admin/posting-requests/${requestId}/reject`, { key: second.token }),
      "posting_request_closed",
    );
    // A request under a key the wallet already holds an entry for (posted before postings were recorded).
    expect((await admin("PUT", "/admin/approval-limits/EUR", { limit: "10" })).status).toBe(200);
    await topUp("demo", "EUR", "5", topUpKey("errors-held"));
    await expectError(
      "POST",
      "/admin/wallets/{clientId}/{currency}/top-ups",
      await admin("POST", "/admin/wallets/demo/EUR/top-ups", {
        amount: "11",
        idempotencyKey: "errors-held",
        reason: "above the limit",
      }),
      "idempotency_key_posted",
    );
    // A limit raise: decided by nobody, then expired.
    await expectError(
      "POST",
      "/admin/approval-limit-requests/{id}/approve",
      await call("POST", "/admin/approval-limit-requests/999999/approve", { key: second.token }),
      "limit_request_not_found",
    );
    const raise = await admin("PUT", "/admin/approval-limits/CHF", { limit: "20" });
    const limitRequest = raise.body.data.request.id as number;
    await env.DB.prepare(`UPDATE approval_limit_requests SET expires_at = 1 WHERE id = ?1`).bind(limitRequest).run();
    await expectError(
      "POST",
      "/admin/approval-limit-requests/{id}/reject",
      await call("POST", `/admin/approval-limit-requests/${limitRequest}/reject`, { key: second.token }),
      "limit_request_closed",
    );
  });

  it("an export across clients: unknown, and not finished", async () => {
    await expectError(
      "GET",
      "/admin/orders/exports/{id}",
      await admin("GET", "/admin/orders/exports/999999"),
      "export_not_found",
    );
    const started = await admin("POST", "/admin/orders/exports", { filter: { clientId: "nobody-here" } });
    const id = started.body.data.export.id as number;
    // Held as a step under way holds it, so that the queue's consumer leaves it running meanwhile.
    await env.DB.prepare(`UPDATE order_exports SET state = 'running', run = 'held', lease_until = ?2 WHERE id = ?1`)
      .bind(id, Date.now() + 600_000)
      .run();
    const file = await admin("GET", `/admin/orders/exports/${id}/file`);
    await expectError("GET", "/admin/orders/exports/{id}/file", file, "export_not_finished");
  });

  it("covered every code with details but server_error and method_not_allowed", () => {
    // server_error carries a reason only where a wallet posting fails (test/wallets); method_not_allowed is
    // the router's, for no route of the document; sku_changed answers only an upload that raced a change
    // of its SKU (test/inventory/inventory-routes.test.ts).
    const elsewhere: ErrorCode[] = ["server_error", "method_not_allowed", "sku_changed"];
    const withDetails = (Object.keys(ERROR_DETAILS) as ErrorCode[]).filter(
      (code) => ERROR_DETAILS[code].schema !== undefined,
    );
    expect(withDetails.filter((code) => !seen.has(code) && !elsewhere.includes(code))).toEqual([]);
  });
});
