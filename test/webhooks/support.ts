import { createExecutionContext, createMessageBatch, getQueueResult, type QueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import type { OrderEvent, WebhookMessage } from "../../src/webhooks/events";
import { RECEIVER_URL } from "./receiver";

/** A queue producer that keeps what is sent to it (and can be told to refuse). */
export class FakeQueue<Body = unknown> {
  readonly sent: Body[] = [];
  refuse = false;

  async send(body: Body): Promise<QueueSendResponse> {
    if (this.refuse) throw new Error("Queue send failed: internal error");
    this.sent.push(structuredClone(body));
    return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } };
  }

  async sendBatch(messages: Iterable<MessageSendRequest<Body>>): Promise<QueueSendBatchResponse> {
    for (const message of messages) await this.send(message.body);
    return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } };
  }

  asQueue(): Queue {
    return this as unknown as Queue;
  }
}

export async function addWebhookClient(id: string, secret: string, disabled = false): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO clients (id, name, webhook_secret, created_at, disabled_at) VALUES (?1, ?1, ?2, ?3, ?4)
     ON CONFLICT (id) DO UPDATE SET webhook_secret = excluded.webhook_secret, disabled_at = excluded.disabled_at`,
  )
    .bind(id, secret, Date.now(), disabled ? Date.now() : null)
    .run();
}

let counter = 0;

export function webhookMessage(
  clientId: string,
  overrides: { url?: string; event?: Partial<OrderEvent> } = {},
): WebhookMessage {
  counter += 1;
  return {
    clientId,
    url: overrides.url ?? RECEIVER_URL,
    event: {
      id: `evt_test${counter}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`,
      type: "order.confirmed",
      createdAt: Date.now(),
      data: { orderId: `ord_${counter}`, state: "confirmed", reference: `ref-${counter}` },
      livemode: false,
      ...overrides.event,
    },
  };
}

export interface Sent<Body> {
  id?: string;
  body: Body;
  attempts?: number;
}

/**
 * Runs `handler` on a batch built by createMessageBatch and returns what it acked and retried.
 * @cloudflare/vitest-plugin 1.5.0's getQueueResult drops the options of `message.retry()`, so the
 * delays are recorded here with a spy on each message and put back into `retryMessages`.
 */
export async function runBatch<Body>(
  queue: string,
  messages: Sent<Body>[],
  handler: (batch: MessageBatch<Body>, ctx: ExecutionContext) => Promise<void>,
): Promise<QueueResult> {
  const batch = createMessageBatch<Body>(
    queue,
    messages.map((message, index) => ({
      id: message.id ?? `msg-${index}-${crypto.randomUUID()}`,
      timestamp: new Date(),
      attempts: message.attempts ?? 1,
      body: message.body,
    })),
  );
  const delays = new Map<string, number | undefined>();
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    vi.spyOn(message, "retry").mockImplementation((options?: QueueRetryOptions) => {
      delays.set(message.id, options?.delaySeconds);
      retry(options);
    });
  }
  const ctx = createExecutionContext();
  await handler(batch, ctx);
  const result = await getQueueResult(batch, ctx);
  return {
    ...result,
    retryMessages: result.retryMessages.map((retry) => ({ ...retry, delaySeconds: delays.get(retry.msgId) })),
  };
}
