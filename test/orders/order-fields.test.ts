/**
 * The create request's fields besides productList (ORDER_FIELDS in src/orders/requests.ts): each is part
 * of what the idempotency of `reference` compares, and the client's view shows exactly those named
 * "shown", in its answer and in its schema, so that a new field of the request reaches both without an
 * edit to the view and a field that must not be shown is hidden only by saying so.
 */
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/kernel/crypto";
import { EXAMPLE_CREATE, EXAMPLE_REQUEST_HASH, orderExamples } from "../../src/orders/order-examples";
import type { OrderRecord } from "../../src/orders/order-record";
import { orderView } from "../../src/orders/order-view";
import { ORDER_FIELDS, SHOWN_ORDER_FIELDS, canonicalCreateRequest } from "../../src/orders/requests";
import { CreateOrderRequest } from "../../src/orders/order-schemas";
import { OrderView } from "../../src/orders/order-view-schemas";

const record = orderExamples.adminGetOrder.data.record as OrderRecord;

describe("the create request's fields", () => {
  it("ORDER_FIELDS names every field of the request's schema but productList", () => {
    const requestFields = Object.keys(CreateOrderRequest.shape).filter((field) => field !== "productList");
    expect(Object.keys(ORDER_FIELDS).sort()).toEqual(requestFields.sort());
    expect(SHOWN_ORDER_FIELDS).toEqual(["reference"]);
  });

  it("the view shows the shown fields as the order keeps them, and no hidden one", () => {
    const kept: OrderRecord = { ...record, reference: "po-other", webhookUrl: "https://hooks.example.com/orders" };
    const view = orderView(kept, true) as Record<string, unknown>;
    for (const field of SHOWN_ORDER_FIELDS) expect(field in view, field).toBe(true);
    expect(view.reference).toBe("po-other");
    expect(JSON.stringify(view)).not.toContain("hooks.example.com");
    const fields = Object.keys(ORDER_FIELDS) as (keyof typeof ORDER_FIELDS)[];
    const hidden = fields.filter((field) => ORDER_FIELDS[field] === "hidden");
    expect(hidden).toEqual(["wallet", "webhookUrl"]);
    for (const field of hidden) expect(field in view, field).toBe(false);
  });

  it("the view's schema has exactly the shown fields of the request, where its answer has them", () => {
    const keys = Object.keys(OrderView.shape);
    for (const field of SHOWN_ORDER_FIELDS) expect(keys, field).toContain(field);
    const hidden = Object.keys(ORDER_FIELDS).filter((field) => !(SHOWN_ORDER_FIELDS as string[]).includes(field));
    for (const field of hidden) expect(keys, field).not.toContain(field);
    // Key for key in the order of the answer, so that the document lists them as a client receives them.
    expect(keys).toEqual(Object.keys(orderView(record, false)));
  });

  it("a create compares as it always has: the hash of an order stored before now is still the same", async () => {
    expect(canonicalCreateRequest(EXAMPLE_CREATE, null)).toBe(
      '{"productList":[["DEMO-EU-FIXED","fixed",25,2],["DEMO-JP-RANGE","range",1000,1]],' +
        '"wallet":"USD","reference":"po-2026-0042","webhookUrl":null}',
    );
    expect(await sha256Hex(canonicalCreateRequest(EXAMPLE_CREATE, null))).toBe(EXAMPLE_REQUEST_HASH);
    const url = "https://hooks.example.com/o";
    const withUrl = JSON.parse(canonicalCreateRequest({ ...EXAMPLE_CREATE, webhookUrl: url }, "partial"));
    expect(withUrl).toMatchObject({ webhookUrl: url, sandboxOutcome: "partial" });
  });

  it("every field of the request is compared: another value of any of them is another request", () => {
    const base = canonicalCreateRequest(EXAMPLE_CREATE, null);
    for (const field of Object.keys(ORDER_FIELDS) as (keyof typeof ORDER_FIELDS)[]) {
      expect(canonicalCreateRequest({ ...EXAMPLE_CREATE, [field]: "other-value" }, null), field).not.toBe(base);
    }
  });
});
