/**
 * The client's account webhook endpoints: create (secret shown once), list, update, delete, rotate (the
 * old secret signs alongside for 24 h), the sandbox's test event, the limit of 10, the URL policy of order
 * webhooks; another client's endpoint is answered as an unknown one. Deliveries: every event of the client
 * whose type an endpoint takes is queued for it once, delivered signed with its secrets, and an endpoint
 * deleted or no longer taking the type gets nothing.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { expectError, freshClient } from "../order-helpers";
import { announceToEndpoints } from "../../src/webhooks/endpoint-fanout";
import { queue } from "../../src/webhooks/queue-handler";
import type { ClientEvent, EndpointMessage } from "../../src/webhooks/events";
import { FakeReceiver, verifies } from "./receiver";
import { FakeQueue, runBatch } from "./support";

beforeAll(seedDemo);

const URL_OK = "http://127.0.0.1:9797/hooks/account";
let receiver: FakeReceiver | null = null;
afterEach(() => {
  receiver?.restore();
  receiver = null;
  vi.restoreAllMocks();
});

const create = (key: string, body: unknown) => call("POST", "/webhook-endpoints", { key, body });

function event(type: ClientEvent["type"] = "order.confirmed"): ClientEvent {
  return {
    id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
    type: "order.confirmed",
    createdAt: Date.now(),
    data: { orderId: `ord_${"a".repeat(64)}`, state: "confirmed", reference: "r" },
    livemode: false,
    ...(type === "order.confirmed" ? {} : { type }),
  } as ClientEvent;
}

describe("account webhook endpoints", () => {
  it("creates one with its secret shown once, lists, updates and deletes it", async () => {
    const { key } = await freshClient();
    const made = await create(key, { url: URL_OK, eventTypes: ["wallet.low", "order.failed", "wallet.low"] });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    await expectConforms("POST", "/webhook-endpoints", made);
    const { endpoint } = made.body.data;
    expect(endpoint).toMatchObject({ url: URL_OK, eventTypes: ["order.failed", "wallet.low"], secretRotatedAt: null });
    expect(endpoint.id).toMatch(/^we_[0-9a-f]{32}$/);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await call("GET", "/webhook-endpoints", { key });
    await expectConforms("GET", "/webhook-endpoints", listed);
    const { secret, ...shown } = endpoint;
    expect(listed.body.data.endpoints).toEqual([shown]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const patched = await call("PATCH", `/webhook-endpoints/${endpoint.id}`, {
      key,
      body: { eventTypes: ["wallet.funded"] },
    });
    await expectConforms("PATCH", "/webhook-endpoints/{id}", patched);
    expect(patched.body.data.endpoint).toMatchObject({ url: URL_OK, eventTypes: ["wallet.funded"] });
    const deleted = await call("DELETE", `/webhook-endpoints/${endpoint.id}`, { key });
    await expectConforms("DELETE", "/webhook-endpoints/{id}", deleted);
    expect(deleted.body.data).toEqual({ id: endpoint.id, deleted: true });
    expect((await call("GET", "/webhook-endpoints", { key })).body.data.endpoints).toEqual([]);
    expectError(await call("DELETE", `/webhook-endpoints/${endpoint.id}`, { key }), 404, "Webhook endpoint not found");
  });

  it("refuses bad input with a 4xx and stores nothing", async () => {
    const { key } = await freshClient();
    const refused = [
      [{ url: "ftp://example.com/x", eventTypes: ["wallet.low"] }, 400, "invalid_webhook_url"],
      [{ url: "https://10.0.0.1/hooks", eventTypes: ["wallet.low"] }, 400, "invalid_webhook_url"],
      [{ url: "https://example.com/hooks", eventTypes: ["order.shipped"] }, 400, "invalid_request_body"],
      [{ url: "https://example.com/hooks", eventTypes: [] }, 400, "invalid_request_body"],
      [{ url: "https://example.com/hooks" }, 400, "invalid_request_body"],
    ] as const;
    for (const [body, status, code] of refused) {
      const answer = await create(key, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.body.code).toBe(code);
    }
    expect((await call("GET", "/webhook-endpoints", { key })).body.data.endpoints).toEqual([]);
  });

  it("holds a client to 10 endpoints", async () => {
    const { key } = await freshClient();
    for (let index = 0; index < 10; index += 1)
      expect((await create(key, { url: `${URL_OK}/${index}`, eventTypes: ["wallet.low"] })).status).toBe(200);
    const eleventh = await create(key, { url: URL_OK, eventTypes: ["wallet.low"] });
    expectError(eleventh, 409, "You have as many webhook endpoints as allowed", "webhook_endpoint_limit");
    expect((await call("GET", "/webhook-endpoints", { key })).body.data.endpoints).toHaveLength(10);
  });

  it("never shows or changes another client's endpoint: the 404 of an unknown one", async () => {
    const owner = await freshClient();
    const other = await freshClient();
    const { endpoint } = (await create(owner.key, { url: URL_OK, eventTypes: ["wallet.low"] })).body.data;
    const unknown = "we_00000000000000000000000000000000";
    for (const id of [endpoint.id, unknown]) {
      const calls = [
        call("PATCH", `/webhook-endpoints/${id}`, { key: other.key, body: { eventTypes: ["wallet.funded"] } }),
        call("DELETE", `/webhook-endpoints/${id}`, { key: other.key }),
        call("POST", `/webhook-endpoints/${id}/rotate-secret`, { key: other.key }),
        call("POST", `/webhook-endpoints/${id}/test`, { key: other.key }),
      ];
      for (const answer of await Promise.all(calls))
        expectError(answer, 404, "Webhook endpoint not found", "webhook_endpoint_not_found");
    }
    expect((await call("GET", "/webhook-endpoints", { key: other.key })).body.data.endpoints).toEqual([]);
    const kept = (await call("GET", "/webhook-endpoints", { key: owner.key })).body.data.endpoints;
    expect(kept).toEqual([expect.objectContaining({ id: endpoint.id, eventTypes: ["wallet.low"] })]);
  });

  it("rotates the secret: shown once, and the previous one signs alongside for 24 h", async () => {
    const { key } = await freshClient();
    const { endpoint } = (await create(key, { url: URL_OK, eventTypes: ["order.confirmed"] })).body.data;
    const rotated = await call("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`, { key });
    await expectConforms("POST", "/webhook-endpoints/{id}/rotate-secret", rotated);
    const fresh = rotated.body.data.endpoint.secret as string;
    expect(fresh).not.toBe(endpoint.secret);
    receiver = new FakeReceiver({ secret: fresh });
    const tested = await call("POST", `/webhook-endpoints/${endpoint.id}/test`, { key });
    await expectConforms("POST", "/webhook-endpoints/{id}/test", tested);
    expect(tested.body.data).toMatchObject({ delivered: true, status: 204, error: null });
    const [delivery] = receiver.deliveries;
    expect(delivery!.headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
    expect(verifies(fresh, delivery!.body, delivery!.headers)).toBe(true);
    expect(verifies(endpoint.secret, delivery!.body, delivery!.headers)).toBe(true);
  });
});

describe("deliveries to account endpoints", () => {
  it("queues each new event for each endpoint taking its type, and delivers it signed", async () => {
    const { id, key } = await freshClient();
    const low = (await create(key, { url: `${URL_OK}/low`, eventTypes: ["wallet.low"] })).body.data.endpoint;
    const all = (await create(key, { url: `${URL_OK}/all`, eventTypes: ["order.confirmed", "wallet.low"] })).body.data
      .endpoint;
    const webhooks = new FakeQueue<EndpointMessage>();
    const confirmed = event("order.confirmed");
    await announceToEndpoints({ DB: env.DB, WEBHOOKS: webhooks.asQueue() }, id, [confirmed]);
    expect(webhooks.sent).toEqual([{ clientId: id, endpointId: all.id, url: `${URL_OK}/all`, event: confirmed }]);
    receiver = new FakeReceiver({ secret: all.secret });
    const result = await runBatch("order-webhooks", [{ body: webhooks.sent[0] }], (batch, ctx) =>
      queue(batch, env, ctx),
    );
    expect(result.explicitAcks).toHaveLength(1);
    expect(receiver.deliveries.map((each) => [each.url, each.signatureValid])).toEqual([[`${URL_OK}/all`, true]]);
    expect(receiver.deliveries[0]!.headers.get("webhook-id")).toBe(confirmed.id);
    expect(low.id).not.toBe(all.id);
  });

  it("sends nothing to an endpoint deleted or no longer taking the type after the event was queued", async () => {
    const { id, key } = await freshClient();
    const endpoint = (await create(key, { url: URL_OK, eventTypes: ["order.confirmed"] })).body.data.endpoint;
    const message: EndpointMessage = { clientId: id, endpointId: endpoint.id, url: URL_OK, event: event() };
    await call("PATCH", `/webhook-endpoints/${endpoint.id}`, { key, body: { eventTypes: ["wallet.low"] } });
    receiver = new FakeReceiver({ secret: endpoint.secret });
    await runBatch("order-webhooks", [{ body: message }], (batch, ctx) => queue(batch, env, ctx));
    await call("DELETE", `/webhook-endpoints/${endpoint.id}`, { key });
    const result = await runBatch("order-webhooks", [{ body: { ...message, event: event() } }], (batch, ctx) =>
      queue(batch, env, ctx),
    );
    expect(result.explicitAcks).toHaveLength(1);
    expect(receiver.deliveries).toEqual([]);
  });

  it("gives a delivery up after its last attempt as delivery.failed in the client's events, once", async () => {
    const { id, key } = await freshClient();
    const endpoint = (await create(key, { url: URL_OK, eventTypes: ["order.confirmed"] })).body.data.endpoint;
    const failing = event();
    const message: EndpointMessage = { clientId: id, endpointId: endpoint.id, url: URL_OK, event: failing };
    receiver = new FakeReceiver({ secret: endpoint.secret, failFirst: 100, failWith: 503 });
    const testEnv = { ...env, WEBHOOK_MAX_ATTEMPTS: "3" } as Env;
    for (const attempts of [1, 2, 3, 3])
      await runBatch("order-webhooks", [{ body: message, attempts }], (batch, ctx) => queue(batch, testEnv, ctx));
    const events = (await call("GET", "/events?type=delivery.failed", { key })).body.data.events;
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^evt_df_[0-9a-f]{32}$/),
        type: "delivery.failed",
        createdAt: expect.any(Number),
        data: {
          eventId: failing.id,
          eventType: "order.confirmed",
          endpointId: endpoint.id,
          url: URL_OK,
          attempts: 3,
          error: "HTTP 503",
        },
        livemode: false,
      },
    ]);
  });
});
