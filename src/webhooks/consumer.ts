/**
 * Consumer of the `order-webhooks` queue: POSTs each event, signed, to the order's webhookUrl.
 *
 * A 2xx answer acks the message. A non-2xx answer (redirects included: they are not followed), a timeout
 * or a network error retries it with exponential backoff; the attempt numbered WEBHOOK_MAX_ATTEMPTS that
 * fails sends it to the dead-letter queue instead. The Queue's own max_retries/dead_letter_queue is the
 * safety net behind that. A message that is not a valid WebhookMessage is acked and logged.
 */
import { type DeadLetterMessage, QueuedWebhookMessageSchema } from "./webhook-message-schemas";
import { serviceMode } from "../kernel/service-mode";
import {
  backoffSeconds,
  DELIVERY_TIMEOUT_MS,
  maxAttemptsFrom,
  PREVIOUS_SECRET_OVERLAP_MS,
  signedHeaders,
} from "./delivery";
import { webhookSigningKey } from "../clients/client-secrets";
import { webhookSecretsStatement, type WebhookSecretRow } from "../clients/client-store";
import type { OrderEvent, WebhookMessage } from "./events";
import { checkWebhookUrl } from "./url-policy";
import { componentLog } from "../kernel/log";
import { recordAnswers as recordBookAnswers } from "../books/books-writer";
import type { DeliveryAnswer, OrderAnswer } from "../books/answer-rules";

export type WebhookConsumerEnv = Pick<
  Env,
  "DB" | "BOOKS" | "WEBHOOKS_DLQ" | "ALLOW_INSECURE_WEBHOOKS" | "WEBHOOK_MAX_ATTEMPTS"
> &
  Partial<Pick<Env, "SERVICE_MODE">>;

/** The outcome of one delivery attempt. `permanent` failures are dead-lettered without further attempts. */
export type Attempt = { ok: true; status: number } | { ok: false; error: string; status?: number; permanent?: boolean };

export interface ClientSecret {
  secret: string;
  /** The secret before the last rotation, and when that rotation was (null if never rotated). */
  previousSecret: string | null;
  rotatedAt: number | null;
  disabled: boolean;
}

const log = componentLog("webhooks");

/** Webhook secrets of the batch's clients, read once per batch. Null for a client that does not exist. */
export async function secretsOf(db: D1Database, clientIds: string[]): Promise<Map<string, ClientSecret | null>> {
  const unique = [...new Set(clientIds)];
  const secrets = new Map<string, ClientSecret | null>(unique.map((id) => [id, null]));
  if (unique.length === 0) return secrets;
  const { results } = await webhookSecretsStatement(db, unique).all<WebhookSecretRow>();
  for (const row of results) {
    secrets.set(row.id, {
      secret: row.webhook_secret,
      previousSecret: row.previous_webhook_secret,
      rotatedAt: row.webhook_secret_rotated_at,
      disabled: row.disabled_at !== null,
    });
  }
  return secrets;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError")
      return `timeout after ${DELIVERY_TIMEOUT_MS / 1000} s`;
    return `${error.name}: ${error.message}`.slice(0, 500);
  }
  return String(error).slice(0, 500);
}

/**
 * The keys a delivery at `now` is signed with: the current secret's, then for PREVIOUS_SECRET_OVERLAP_MS
 * after a rotation the previous secret's. Null when the current secret cannot be used as a key.
 */
export function signingKeys(
  client: Pick<ClientSecret, "secret" | "previousSecret" | "rotatedAt">,
  now: number,
): Uint8Array[] | null {
  const current = webhookSigningKey(client.secret);
  if (current === null) return null;
  const overlapping =
    client.previousSecret !== null && client.rotatedAt !== null && now - client.rotatedAt < PREVIOUS_SECRET_OVERLAP_MS;
  const previous = overlapping ? webhookSigningKey(client.previousSecret!) : null;
  return previous === null ? [current] : [current, previous];
}

/**
 * POSTs the event to `url`, signed now with `keys`: one attempt, redirects not followed, DELIVERY_TIMEOUT_MS
 * to answer. The queue's deliveries and the sandbox's test webhook (src/sandbox) both send through here.
 */
export async function postSignedEvent(url: string, event: OrderEvent, keys: Uint8Array[]): Promise<Attempt> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "order-service-webhooks/1",
        ...(await signedHeaders(keys, event.id, timestamp, body)),
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // The answer's body is of no interest; let the connection go.
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, error: `HTTP ${response.status}`, status: response.status };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

/** One POST of the event, signed now. */
async function attemptDelivery(
  message: WebhookMessage,
  client: ClientSecret | null | undefined,
  env: WebhookConsumerEnv,
): Promise<Attempt> {
  // Checked again at delivery: the queue must not become a way to reach what create refuses.
  const problem = checkWebhookUrl(message.url, env.ALLOW_INSECURE_WEBHOOKS === "true");
  if (problem !== null) return { ok: false, error: `webhookUrl is not allowed: ${problem}`, permanent: true };
  if (client == null) return { ok: false, error: `unknown client ${message.clientId}`, permanent: true };
  if (client.disabled) return { ok: false, error: `client ${message.clientId} is disabled`, permanent: true };

  const keys = signingKeys(client, Date.now());
  // Loud, not silent: a secret no Standard Webhooks library can use is dead-lettered, to be replayed after a rotation.
  if (keys === null)
    return {
      ok: false,
      error: `webhook secret of client ${message.clientId} is not whsec_<base64>; rotate it`,
      permanent: true,
    };
  return postSignedEvent(message.url, message.event, keys);
}

/** Hands a message to the dead-letter queue; false when the queue would not take it. */
async function deadLetter(
  env: WebhookConsumerEnv,
  message: WebhookMessage,
  attempts: number,
  error: string,
): Promise<boolean> {
  const body: DeadLetterMessage = { ...message, deadLetter: { attempts, error: error.slice(0, 1000) } };
  try {
    await env.WEBHOOKS_DLQ.send(body, { contentType: "json" });
    return true;
  } catch (sendError) {
    log("error", "dead-letter queue refused the message", {
      eventId: message.event.id,
      error: describeError(sendError),
    });
    return false;
  }
}

/** The `queue` handler for `order-webhooks`. */
export async function deliverWebhooks(batch: MessageBatch<unknown>, env: WebhookConsumerEnv): Promise<void> {
  const maxAttempts = maxAttemptsFrom(env.WEBHOOK_MAX_ATTEMPTS);
  const valid: { raw: Message<unknown>; message: WebhookMessage }[] = [];
  // A message queued before events carried livemode is this deployment's: it gets this deployment's mode.
  const livemode = serviceMode({ SERVICE_MODE: env.SERVICE_MODE ?? "live" }) === "live";
  for (const raw of batch.messages) {
    const parsed = QueuedWebhookMessageSchema.safeParse(raw.body);
    if (parsed.success) {
      const { event } = parsed.data;
      valid.push({ raw, message: { ...parsed.data, event: { ...event, livemode: event.livemode ?? livemode } } });
    } else {
      log("error", "malformed webhook message dropped", { messageId: raw.id, issues: parsed.error.issues.slice(0, 5) });
      raw.ack();
    }
  }
  if (valid.length === 0) return;

  let secrets: Map<string, ClientSecret | null>;
  try {
    secrets = await secretsOf(
      env.DB,
      valid.map(({ message }) => message.clientId),
    );
  } catch (error) {
    // D1 is unavailable: nothing was attempted, so try the whole batch again later.
    log("error", "could not read webhook secrets", { error: describeError(error) });
    for (const { raw } of valid) raw.retry({ delaySeconds: backoffSeconds(raw.attempts) });
    return;
  }

  const booked: OrderAnswer[] = [];
  await Promise.all(
    valid.map(async ({ raw, message }) => {
      const fields = { messageId: raw.id, eventId: message.event.id, type: message.event.type, attempt: raw.attempts };
      const result = await attemptDelivery(message, secrets.get(message.clientId), env);
      const answered = {
        eventId: message.event.id,
        attempts: raw.attempts,
        status: result.status ?? null,
        error: result.ok ? null : result.error,
        answeredAt: Date.now(),
      };
      const answer = (outcome: DeliveryAnswer["outcome"]) => {
        if (message.orderCreatedAt !== undefined)
          booked.push({ ...answered, outcome, ...orderOf(message, message.orderCreatedAt) });
      };
      if (result.ok) {
        log("info", "webhook delivered", { ...fields, status: result.status });
        raw.ack();
        answer("delivered");
        return;
      }
      if (result.permanent || raw.attempts >= maxAttempts) {
        log("warn", "webhook dead-lettered", { ...fields, error: result.error });
        if (await deadLetter(env, message, raw.attempts, result.error)) {
          raw.ack();
          answer("dead_lettered");
        } else {
          raw.retry({ delaySeconds: backoffSeconds(raw.attempts) });
          answer("retrying");
        }
        return;
      }
      const delaySeconds = backoffSeconds(raw.attempts);
      log("warn", "webhook delivery failed; retrying", { ...fields, error: result.error, delaySeconds });
      raw.retry({ delaySeconds });
      answer("retrying");
    }),
  );
  await recordAnswers(env, booked);
}

/** What an answer in the books is about: the order, its shard's client and day, and the state announced. */
function orderOf(message: WebhookMessage, orderCreatedAt: number) {
  const { orderId, state } = message.event.data;
  return { clientId: message.clientId, orderId, orderCreatedAt, state };
}

/**
 * Records the batch's answers after every message has its ack or retry: the record is for the operator
 * and never changes a delivery. They go to the order's row in its books (docs/books.md, "Webhook
 * answers"), where the console's timeline reads them; a record that fails is logged.
 */
async function recordAnswers(env: WebhookConsumerEnv, booked: OrderAnswer[]): Promise<void> {
  try {
    await recordBookAnswers(env.BOOKS, booked);
  } catch (error) {
    log("error", "could not record webhook answers", {
      where: "books",
      events: booked.length,
      error: describeError(error),
    });
  }
}
