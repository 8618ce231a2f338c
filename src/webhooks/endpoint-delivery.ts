/**
 * Deliveries to account webhook endpoints (EndpointMessage, queued by endpoint-fanout.ts) on the webhook
 * queue: the endpoint is read again at delivery (deleted, now another client's, or no longer taking the
 * type: acked and nothing sent), signed with its secrets (its previous one too for 24 h after a rotation),
 * and retried with the webhooks' backoff. After the last attempt, or at once for a URL the policy refuses,
 * the delivery is given up: its `delivery.failed` is recorded in the client's books before the message is
 * acked, so a failure of that record retries the message rather than lose the event.
 */
import * as z from "zod";
import { componentLog } from "../kernel/log";
import { backoffSeconds, maxAttemptsFrom } from "./delivery";
import { postSignedEvent, signingKeys, type Attempt } from "./consumer";
import { recordDeliveryFailures } from "./delivery-failure";
import { endpointsByIds, type StoredEndpoint } from "./endpoint-store";
import type { ClientEvent, EndpointMessage } from "./events";
import { ClientEventSchema } from "./event-schemas";
import { checkWebhookUrl } from "./url-policy";

export type EndpointDeliveryEnv = Pick<Env, "DB" | "BOOKS" | "ALLOW_INSECURE_WEBHOOKS" | "WEBHOOK_MAX_ATTEMPTS">;

const log = componentLog("webhooks");

export const EndpointMessageSchema = z.object({
  clientId: z.string().min(1),
  endpointId: z.string().min(1).max(64),
  url: z.string().min(1).max(2048),
  event: ClientEventSchema,
});

/** Whether a queue message is for an account endpoint (it names one). */
export function isEndpointMessage(body: unknown): boolean {
  return typeof body === "object" && body !== null && "endpointId" in body;
}

/** One attempt to the endpoint as it is now; null when it no longer takes this message (nothing to send). */
async function attempt(
  message: EndpointMessage,
  endpoint: StoredEndpoint | undefined,
  env: EndpointDeliveryEnv,
): Promise<Attempt | null> {
  if (endpoint === undefined || endpoint.clientId !== message.clientId) return null;
  if (!endpoint.eventTypes.includes(message.event.type)) return null;
  const problem = checkWebhookUrl(endpoint.url, env.ALLOW_INSECURE_WEBHOOKS === "true");
  if (problem !== null) return { ok: false, error: `url is not allowed: ${problem}`, permanent: true };
  const keys = signingKeys(endpoint, Date.now());
  if (keys === null) return { ok: false, error: "the endpoint's secret is unusable", permanent: true };
  return postSignedEvent(endpoint.url, message.event as Parameters<typeof postSignedEvent>[1], keys);
}

/** Delivers a batch's endpoint messages; acks or retries each. */
export async function deliverToEndpoints(raws: readonly Message<unknown>[], env: EndpointDeliveryEnv): Promise<void> {
  const valid: { raw: Message<unknown>; message: EndpointMessage }[] = [];
  for (const raw of raws) {
    const parsed = EndpointMessageSchema.safeParse(raw.body);
    if (parsed.success) valid.push({ raw, message: { ...parsed.data, event: parsed.data.event as ClientEvent } });
    else {
      log("error", "malformed endpoint message dropped", {
        messageId: raw.id,
        issues: parsed.error.issues.slice(0, 5),
      });
      raw.ack();
    }
  }
  if (valid.length === 0) return;
  let endpoints: Map<string, StoredEndpoint>;
  try {
    endpoints = await endpointsByIds(
      env.DB,
      valid.map(({ message }) => message.endpointId),
    );
  } catch (error) {
    log("error", "could not read webhook endpoints", { error: String(error) });
    for (const { raw } of valid) raw.retry({ delaySeconds: backoffSeconds(raw.attempts) });
    return;
  }
  const maxAttempts = maxAttemptsFrom(env.WEBHOOK_MAX_ATTEMPTS);
  await Promise.all(
    valid.map(async ({ raw, message }) => {
      const fields = { messageId: raw.id, eventId: message.event.id, endpointId: message.endpointId };
      const result = await attempt(message, endpoints.get(message.endpointId), env);
      if (result === null) {
        log("info", "endpoint gone or no longer subscribed; nothing sent", fields);
        return raw.ack();
      }
      if (result.ok) {
        log("info", "webhook delivered", { ...fields, status: result.status, attempt: raw.attempts });
        return raw.ack();
      }
      if (!result.permanent && raw.attempts < maxAttempts) {
        log("warn", "webhook delivery failed; retrying", { ...fields, error: result.error });
        return raw.retry({ delaySeconds: backoffSeconds(raw.attempts) });
      }
      await giveUp(env, raw, message, endpoints.get(message.endpointId)!, result.error);
    }),
  );
}

/** Records the delivery's failure, then acks it; a record that fails retries the message. */
async function giveUp(
  env: EndpointDeliveryEnv,
  raw: Message<unknown>,
  message: EndpointMessage,
  endpoint: StoredEndpoint,
  error: string,
): Promise<void> {
  const { clientId, event, endpointId } = message;
  try {
    const given = { clientId, event, endpointId, url: endpoint.url, attempts: raw.attempts, error };
    await recordDeliveryFailures(env, [given], Date.now());
  } catch (recordError) {
    log("error", "could not record a delivery's failure; retrying", { eventId: event.id, error: String(recordError) });
    return raw.retry({ delaySeconds: backoffSeconds(raw.attempts) });
  }
  log("warn", "webhook given up", { eventId: event.id, endpointId, error });
  raw.ack();
}
