/**
 * POST /webhook-endpoints/:id/test (sandbox): one signed POST of an example event to the endpoint, now,
 * with its secrets as a delivery at this moment is signed. Not queued and not kept in the books.
 */
import { randomHex } from "../kernel/crypto";
import { checkWebhookUrl } from "./url-policy";
import { postSignedEvent, signingKeys } from "./consumer";
import type { OrderEvent } from "./events";
import type { StoredEndpoint } from "./endpoint-store";

export async function sendTestEvent(env: Env, endpoint: StoredEndpoint) {
  const event: OrderEvent = {
    id: `evt_${randomHex(16)}`,
    type: "order.confirmed",
    createdAt: Date.now(),
    data: { orderId: `ord_${randomHex(32)}`, state: "confirmed", reference: "test-event" },
    livemode: false,
  };
  const problem = checkWebhookUrl(endpoint.url, env.ALLOW_INSECURE_WEBHOOKS === "true");
  const keys = signingKeys(endpoint, Date.now());
  if (problem !== null || keys === null)
    return { eventId: event.id, delivered: false, status: null, error: problem ?? "the endpoint's secret is unusable" };
  const attempt = await postSignedEvent(endpoint.url, event, keys);
  return {
    eventId: event.id,
    delivered: attempt.ok,
    status: attempt.status ?? null,
    error: attempt.ok ? null : attempt.error,
  };
}
