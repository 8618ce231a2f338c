/**
 * The client's events and account webhook endpoints in live mode (sk_live_ keys): another client's events
 * are never listed, and another client's endpoint is answered as an unknown one on every route; the
 * sandbox's test event is not found in live.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { call } from "../helpers";
import { expectError } from "../order-helpers";

beforeAll(async () => {
  await env.DB.prepare(
    `INSERT OR IGNORE INTO approval_limits (currency, amount, updated_at) VALUES ('USD', '1000000', 0)`,
  ).run();
});

async function liveClient(id: string): Promise<string> {
  const created = await admin("POST", "/admin/clients", { id, name: id });
  expect(created.body.data.apiKey).toMatch(/^sk_live_/);
  const topUp = await admin("POST", `/admin/wallets/${id}/USD/top-ups`, {
    amount: "100",
    idempotencyKey: `${id}-opening`,
    reason: "opening",
    note: "Welcome",
  });
  expect(topUp.status).toBe(200);
  return created.body.data.apiKey as string;
}

describe("events and account endpoints in live mode", () => {
  it("answers another client's endpoint as an unknown one, and lists none of its events", async () => {
    const mine = await liveClient("live-events-mine");
    const theirs = await liveClient("live-events-theirs");
    const made = await call("POST", "/webhook-endpoints", {
      key: theirs,
      body: { url: "https://hooks.example.com/account", eventTypes: ["wallet.low"] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.data.endpoint.id as string;
    const calls = [
      call("PATCH", `/webhook-endpoints/${id}`, { key: mine, body: { eventTypes: ["wallet.funded"] } }),
      call("DELETE", `/webhook-endpoints/${id}`, { key: mine }),
      call("POST", `/webhook-endpoints/${id}/rotate-secret`, { key: mine }),
    ];
    for (const answer of await Promise.all(calls))
      expectError(answer, 404, "Webhook endpoint not found", "webhook_endpoint_not_found");
    expect((await call("GET", "/webhook-endpoints", { key: mine })).body.data.endpoints).toEqual([]);
    expect((await call("GET", "/webhook-endpoints", { key: theirs })).body.data.endpoints).toHaveLength(1);
    const theirEvents = (await call("GET", "/events", { key: theirs })).body.data.events;
    const myEvents = (await call("GET", "/events", { key: mine })).body.data.events;
    expect(
      myEvents.some((event: { id: string }) => theirEvents.some((their: { id: string }) => their.id === event.id)),
    ).toBe(false);
    expectError(
      await call("POST", `/webhook-endpoints/${id}/test`, { key: theirs }),
      404,
      "Not Found",
      "route_not_found",
    );
  });

  it("refuses a URL that is not https, or a private address, as order webhooks are", async () => {
    const key = await liveClient("live-events-urls");
    for (const url of ["http://hooks.example.com/x", "https://10.1.2.3/x", "https://192.168.1.1/x"]) {
      const answer = await call("POST", "/webhook-endpoints", { key, body: { url, eventTypes: ["wallet.low"] } });
      expect(answer.body.code).toBe("invalid_webhook_url");
    }
  });
});
