import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  getDeadLetter,
  keepDeadLetters,
  listDeadLetters,
  replayDeadLetter,
} from "../../src/webhooks/dead-letter-store";
import type { WebhookMessage } from "../../src/webhooks/events";
import { queue } from "../../src/webhooks/queue-handler";
import type { DeadLetterMessage } from "../../src/webhooks/webhook-message-schemas";
import { FakeReceiver, testSecret } from "./receiver";
import { addWebhookClient, FakeQueue, runBatch, webhookMessage, type Sent } from "./support";

function keep(messages: Sent<unknown>[], db: D1Database = env.DB) {
  return runBatch("order-webhooks-dlq", messages, (batch) => keepDeadLetters(batch, { DB: db, BOOKS: env.BOOKS }));
}

function dead(message: WebhookMessage, attempts = 8, error = "HTTP 503"): DeadLetterMessage {
  return { ...message, deadLetter: { attempts, error } };
}

async function rowsFor(eventId: string) {
  const { results } = await env.DB.prepare(`SELECT * FROM dead_letters WHERE event_id = ?1 ORDER BY id`)
    .bind(eventId)
    .all();
  return results;
}

beforeEach(() => {
  for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("dead-letter consumer", () => {
  it("keeps each message in D1 and acks it", async () => {
    const fromConsumer = webhookMessage("acme");
    const fromQueue = webhookMessage("acme", { event: { type: "order.failed" } });
    const before = Date.now();
    const result = await keep([
      { id: "c", body: dead(fromConsumer, 8, "timeout after 10 s") },
      { id: "q", body: fromQueue }, // moved by the Queue itself: no deadLetter info
    ]);
    expect(result.explicitAcks.sort()).toEqual(["c", "q"]);
    const [consumerRow] = await rowsFor(fromConsumer.event.id);
    expect(consumerRow).toMatchObject({
      event_id: fromConsumer.event.id,
      client_id: "acme",
      url: fromConsumer.url,
      attempts: 8,
      last_error: "timeout after 10 s",
      replayed_at: null,
    });
    expect(JSON.parse(consumerRow!.message as string)).toEqual(fromConsumer);
    expect(consumerRow!.failed_at as number).toBeGreaterThanOrEqual(before);
    const [queueRow] = await rowsFor(fromQueue.event.id);
    expect(queueRow).toMatchObject({ attempts: null, last_error: "retries ran out in the queue" });
    expect(JSON.parse(queueRow!.message as string)).toEqual(fromQueue);
  });

  it("keeps an event once while it waits for replay", async () => {
    const message = webhookMessage("acme");
    const result = await keep([
      { id: "1", body: dead(message) },
      { id: "2", body: dead(message, 8, "HTTP 500") },
    ]);
    expect(result.explicitAcks.sort()).toEqual(["1", "2"]);
    await keep([{ id: "3", body: message }]);
    expect(await rowsFor(message.event.id)).toHaveLength(1);
  });

  it("acks and drops what is not a webhook message", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const result = await keep([
      { id: "x", body: { hello: "world" } },
      { id: "y", body: null },
    ]);
    expect(result.explicitAcks.sort()).toEqual(["x", "y"]);
    expect(error).toHaveBeenCalledTimes(2);
  });

  it("retries when D1 cannot store them", async () => {
    const broken = new Proxy(env.DB, {
      get(target, property) {
        if (property === "batch") return () => Promise.reject(new Error("D1_ERROR: unavailable"));
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const message = webhookMessage("acme");
    const result = await keep([{ id: "r", attempts: 2, body: dead(message) }], broken);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: "r", delaySeconds: 20 }]);
    expect(await rowsFor(message.event.id)).toEqual([]);
  });
});

describe("listing and replaying dead letters", () => {
  it("lists newest first, by client and status, a page at a time", async () => {
    await addWebhookClient("lister", "whsec_lister");
    const messages = [1, 2, 3, 4, 5].map(() => webhookMessage("lister"));
    for (const message of messages) await keep([{ body: dead(message) }]);
    await keep([{ body: dead(webhookMessage("someone-else")) }]);

    const first = await listDeadLetters(env.DB, { clientId: "lister", limit: 2 });
    expect(first.deadLetters.map((letter) => letter.eventId)).toEqual([messages[4]!.event.id, messages[3]!.event.id]);
    expect(first.nextBefore).toBe(first.deadLetters[1]!.id);
    const second = await listDeadLetters(env.DB, { clientId: "lister", limit: 2, before: first.nextBefore! });
    expect(second.deadLetters.map((letter) => letter.eventId)).toEqual([messages[2]!.event.id, messages[1]!.event.id]);
    const third = await listDeadLetters(env.DB, { clientId: "lister", limit: 2, before: second.nextBefore! });
    expect(third.deadLetters.map((letter) => letter.eventId)).toEqual([messages[0]!.event.id]);
    expect(third.nextBefore).toBeNull();

    const letter = first.deadLetters[0]!;
    expect(letter).toMatchObject({
      clientId: "lister",
      url: messages[4]!.url,
      attempts: 8,
      lastError: "HTTP 503",
      replayedAt: null,
    });
    expect(letter.message).toEqual(messages[4]);

    const webhooks = new FakeQueue<WebhookMessage>();
    expect(await replayDeadLetter({ DB: env.DB, WEBHOOKS: webhooks.asQueue() }, letter.id)).toMatchObject({ ok: true });
    expect((await listDeadLetters(env.DB, { clientId: "lister" })).deadLetters).toHaveLength(4);
    expect(
      (await listDeadLetters(env.DB, { clientId: "lister", status: "replayed" })).deadLetters.map((l) => l.id),
    ).toEqual([letter.id]);
    expect((await listDeadLetters(env.DB, { clientId: "lister", status: "all" })).deadLetters).toHaveLength(5);
    expect((await listDeadLetters(env.DB, { status: "all", limit: 1000 })).deadLetters.length).toBeLessThanOrEqual(200);
  });

  it("replays once: the same message back on the webhook queue, marked replayed", async () => {
    const message = webhookMessage("acme");
    await keep([{ body: dead(message) }]);
    const [row] = await rowsFor(message.event.id);
    const id = row!.id as number;
    const webhooks = new FakeQueue<WebhookMessage>();
    const replayEnv = { DB: env.DB, WEBHOOKS: webhooks.asQueue() };

    const replayed = await replayDeadLetter(replayEnv, id);
    expect(replayed.ok).toBe(true);
    expect(webhooks.sent).toEqual([message]); // no deadLetter info, same event id
    expect((await getDeadLetter(env.DB, id))!.replayedAt).toEqual(expect.any(Number));

    expect(await replayDeadLetter(replayEnv, id)).toEqual({ ok: false, reason: "already_replayed" });
    expect(await replayDeadLetter(replayEnv, 987654321)).toEqual({ ok: false, reason: "not_found" });
    expect(webhooks.sent).toHaveLength(1);

    // Failing again after the replay makes a new dead letter.
    await keep([{ body: dead(message, 8, "HTTP 502") }]);
    expect((await rowsFor(message.event.id)).map((r) => r.last_error)).toEqual(["HTTP 503", "HTTP 502"]);
  });

  it("leaves the dead letter pending when the queue refuses the replay", async () => {
    const message = webhookMessage("acme");
    await keep([{ body: dead(message) }]);
    const id = (await rowsFor(message.event.id))[0]!.id as number;
    const webhooks = new FakeQueue<WebhookMessage>();
    webhooks.refuse = true;
    await expect(replayDeadLetter({ DB: env.DB, WEBHOOKS: webhooks.asQueue() }, id)).rejects.toThrow(
      /Queue send failed/,
    );
    expect((await getDeadLetter(env.DB, id))!.replayedAt).toBeNull();
    webhooks.refuse = false;
    expect((await replayDeadLetter({ DB: env.DB, WEBHOOKS: webhooks.asQueue() }, id)).ok).toBe(true);
    expect(webhooks.sent).toEqual([message]);
  });
});

describe("queue handler", () => {
  it("routes order-webhooks to delivery and order-webhooks-dlq to the dead-letter table", async () => {
    const secret = testSecret();
    await addWebhookClient("router", secret);
    const receiver = new FakeReceiver({ secret });
    try {
      const testEnv = { ...env, ALLOW_INSECURE_WEBHOOKS: "true" } as Env;
      const delivered = await runBatch("order-webhooks", [{ id: "d", body: webhookMessage("router") }], (batch, ctx) =>
        queue(batch, testEnv, ctx),
      );
      expect(delivered.explicitAcks).toEqual(["d"]);
      expect(receiver.deliveries).toHaveLength(1);
      expect(receiver.deliveries[0]!.signatureValid).toBe(true);

      const message = webhookMessage("router");
      const kept = await runBatch("order-webhooks-dlq", [{ id: "k", body: dead(message) }], (batch, ctx) =>
        queue(batch, testEnv, ctx),
      );
      expect(kept.explicitAcks).toEqual(["k"]);
      expect(await rowsFor(message.event.id)).toHaveLength(1);
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      receiver.restore();
    }
  });

  it("retries a batch from a queue it does not know", async () => {
    const result = await runBatch("something-else", [{ id: "u", body: webhookMessage("acme") }], (batch, ctx) =>
      queue(batch, env, ctx),
    );
    expect(result.retryBatch.retry).toBe(true);
    expect(result.explicitAcks).toEqual([]);
  });
});
