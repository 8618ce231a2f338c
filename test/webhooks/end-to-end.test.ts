/**
 * A message's whole life through the webhook modules, with the Queue's part (redelivery after
 * `retry({delaySeconds})`, incrementing `attempts`) played by the test, and a receiver on 127.0.0.1
 * that checks the signature with the `standardwebhooks` library and fails the first deliveries.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { listDeadLetters, replayDeadLetter } from "../../src/webhooks/dead-letter-store";
import type { WebhookMessage } from "../../src/webhooks/events";
import { queue } from "../../src/webhooks/queue-handler";
import { FakeReceiver, RECEIVER_URL, testSecret } from "./receiver";
import { addWebhookClient, FakeQueue, runBatch, webhookMessage } from "./support";

const SECRET = testSecret();
let receiver: FakeReceiver;
let dlq: FakeQueue;
let webhooks: FakeQueue<WebhookMessage>;
let testEnv: Env;

beforeAll(async () => {
  await addWebhookClient("e2e", SECRET);
});

beforeEach(() => {
  for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  dlq = new FakeQueue();
  webhooks = new FakeQueue();
  testEnv = {
    ...env,
    ALLOW_INSECURE_WEBHOOKS: "true",
    WEBHOOK_MAX_ATTEMPTS: "8",
    WEBHOOKS: webhooks.asQueue(),
    WEBHOOKS_DLQ: dlq.asQueue(),
  } as Env;
});

afterEach(() => {
  vi.restoreAllMocks();
  receiver.restore();
});

/** Plays the Queue for one message: delivers it again after each retry until it is acked. */
async function untilAcked(
  queueName: string,
  body: unknown,
): Promise<{ attempts: number; delays: (number | undefined)[] }> {
  const delays: (number | undefined)[] = [];
  const id = crypto.randomUUID();
  for (let attempts = 1; attempts <= 20; attempts += 1) {
    const result = await runBatch(queueName, [{ id, attempts, body }], (batch, ctx) => queue(batch, testEnv, ctx));
    if (result.explicitAcks.includes(id)) return { attempts, delays };
    expect(result.retryMessages.map((retry) => retry.msgId)).toEqual([id]);
    delays.push(result.retryMessages[0]!.delaySeconds);
  }
  throw new Error("never acked");
}

describe("webhooks end to end", () => {
  it("retries a failing receiver with growing delays until it takes the event, signed every time", async () => {
    receiver = new FakeReceiver({ secret: SECRET, failFirst: 3 });
    const message = webhookMessage("e2e");
    const { attempts, delays } = await untilAcked("order-webhooks", message);
    expect(attempts).toBe(4);
    expect(delays).toEqual([10, 20, 40]);
    expect(receiver.deliveries.map((delivery) => delivery.status)).toEqual([503, 503, 503, 204]);
    expect(receiver.deliveries.every((delivery) => delivery.signatureValid && delivery.url === RECEIVER_URL)).toBe(
      true,
    );
    expect(new Set(receiver.deliveries.map((delivery) => delivery.body))).toEqual(
      new Set([JSON.stringify(message.event)]),
    );
    expect([...receiver.events.keys()]).toEqual([message.event.id]);
    expect(dlq.sent).toEqual([]);
  });

  it("dead-letters after the last attempt, keeps it, and a replay is delivered once the receiver is back", async () => {
    receiver = new FakeReceiver({ secret: SECRET, failFirst: 8, failWith: "network" });
    const message = webhookMessage("e2e", {
      event: { type: "order.successful", data: { orderId: "ord_e2e", state: "successful", reference: "ref-e2e" } },
    });

    const { attempts, delays } = await untilAcked("order-webhooks", message);
    expect(attempts).toBe(8);
    expect(delays).toEqual([10, 20, 40, 80, 160, 320, 640]);
    expect(receiver.deliveries).toHaveLength(8);
    expect(dlq.sent).toHaveLength(1);

    // The dead-letter queue hands it to its consumer, which keeps it for the operator.
    await untilAcked("order-webhooks-dlq", dlq.sent[0]);
    const { deadLetters } = await listDeadLetters(env.DB, { clientId: "e2e" });
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      eventId: message.event.id,
      attempts: 8,
      lastError: "TypeError: Network connection lost.",
      message,
    });

    // The receiver is back; the operator replays; the Queue delivers the replayed message.
    expect((await replayDeadLetter(testEnv, deadLetters[0]!.id)).ok).toBe(true);
    expect(webhooks.sent).toEqual([message]);
    const replay = await untilAcked("order-webhooks", webhooks.sent[0]);
    expect(replay.attempts).toBe(1);
    expect(receiver.deliveries.at(-1)).toMatchObject({
      status: 204,
      signatureValid: true,
      body: JSON.stringify(message.event),
    });
    expect([...receiver.events.keys()]).toEqual([message.event.id]);
    expect((await listDeadLetters(env.DB, { clientId: "e2e" })).deadLetters).toEqual([]);
  });

  it("delivers the same event id again when the queue redelivers it (at least once); the receiver dedupes", async () => {
    receiver = new FakeReceiver({ secret: SECRET });
    const message = webhookMessage("e2e");
    await untilAcked("order-webhooks", message);
    await untilAcked("order-webhooks", structuredClone(message));
    expect(receiver.deliveries).toHaveLength(2);
    expect(receiver.events.size).toBe(1);
  });
});
