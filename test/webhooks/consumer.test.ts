import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { bookedRow } from "../../src/books/books-reader";
import { recordAnswers, writeToBooks } from "../../src/books/books-writer";
import { deliverWebhooks, type WebhookConsumerEnv } from "../../src/webhooks/consumer";
import type { DeadLetterMessage } from "../../src/webhooks/webhook-message-schemas";
import { bookedWriteOf } from "../book-helpers";
import { FakeReceiver, testSecret, verifies } from "./receiver";
import { addWebhookClient, FakeQueue, runBatch, webhookMessage, type Sent } from "./support";

const SECRET = testSecret();
let receiver: FakeReceiver | undefined;
let dlq: FakeQueue<DeadLetterMessage>;

function consumerEnv(overrides: Partial<WebhookConsumerEnv> = {}): WebhookConsumerEnv {
  return {
    DB: env.DB,
    BOOKS: env.BOOKS,
    WEBHOOKS_DLQ: dlq.asQueue(),
    ALLOW_INSECURE_WEBHOOKS: "true",
    WEBHOOK_MAX_ATTEMPTS: "8",
    ...overrides,
  };
}

function deliver(messages: Sent<unknown>[], overrides: Partial<WebhookConsumerEnv> = {}) {
  return runBatch("order-webhooks", messages, (batch) => deliverWebhooks(batch, consumerEnv(overrides)));
}

beforeAll(async () => {
  await addWebhookClient("acme", SECRET);
  await addWebhookClient("gone", "whsec_gone", true);
});

let logs: string[];
beforeEach(() => {
  // The consumer logs one JSON line per message; keep them for assertions instead of the test output.
  logs = [];
  for (const level of ["log", "warn", "error"] as const) {
    vi.spyOn(console, level).mockImplementation((line: unknown) => void logs.push(`${level} ${String(line)}`));
  }
});

afterEach(() => {
  vi.restoreAllMocks();
  receiver?.restore();
  receiver = undefined;
});

function listen(options: Partial<ConstructorParameters<typeof FakeReceiver>[0]> = {}) {
  dlq = new FakeQueue();
  receiver = new FakeReceiver({ secret: SECRET, ...options });
  return receiver;
}

describe("webhook consumer", () => {
  it("POSTs exactly the event as JSON, signed, with a 10 s timeout, and acks on 2xx", async () => {
    const hook = listen();
    const message = webhookMessage("acme");
    const before = Math.floor(Date.now() / 1000);
    const result = await deliver([{ id: "m1", body: message }]);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
    expect(hook.deliveries).toHaveLength(1);
    const [delivery] = hook.deliveries;
    expect(delivery!.method).toBe("POST");
    expect(delivery!.url).toBe(message.url);
    expect(delivery!.headers.get("content-type")).toBe("application/json");
    expect(delivery!.body).toBe(JSON.stringify(message.event));
    expect(JSON.parse(delivery!.body)).toEqual(message.event);
    expect(Object.keys(JSON.parse(delivery!.body))).toEqual(["id", "type", "createdAt", "data", "livemode"]);
    // Standard Webhooks headers: the event id, this attempt's unix seconds, one v1 signature.
    expect(delivery!.headers.get("webhook-id")).toBe(message.event.id);
    const timestamp = Number(delivery!.headers.get("webhook-timestamp"));
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(delivery!.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(delivery!.headers.has("x-signature")).toBe(false);
    expect(delivery!.signatureValid).toBe(true);
    expect(delivery!.init?.signal).toBeInstanceOf(AbortSignal);
    expect(delivery!.init?.redirect).toBe("manual");
    expect(dlq.sent).toEqual([]);
  });

  it("delivers a message queued before events carried livemode with its own deployment's mode", async () => {
    const hook = listen();
    const { livemode: _dropped, ...event } = webhookMessage("acme").event;
    const older = { clientId: "acme", url: webhookMessage("acme").url, event };
    for (const [mode, expected] of [
      ["sandbox", false],
      ["live", true],
    ] as const) {
      const result = await deliver([{ id: `old-${mode}`, body: older }], { SERVICE_MODE: mode });
      expect(result.explicitAcks).toEqual([`old-${mode}`]);
      const body = JSON.parse(hook.deliveries.at(-1)!.body);
      expect(body).toEqual({ ...event, livemode: expected });
      expect(Object.keys(body)).toEqual(["id", "type", "createdAt", "data", "livemode"]);
    }
    expect(hook.deliveries.every((delivery) => delivery.signatureValid)).toBe(true);
  });

  it("reads the secret from D1 at delivery time", async () => {
    const [older, newer] = [testSecret(), testSecret()];
    await addWebhookClient("rotating", older);
    const message = webhookMessage("rotating");
    listen({ secret: older });
    expect((await deliver([{ id: "a", body: message }])).explicitAcks).toEqual(["a"]);
    receiver!.restore();
    await addWebhookClient("rotating", newer);
    const hook = listen({ secret: newer });
    expect((await deliver([{ id: "b", body: message }])).explicitAcks).toEqual(["b"]);
    expect(hook.deliveries[0]!.signatureValid).toBe(true);
    expect(verifies(older, hook.deliveries[0]!.body, hook.deliveries[0]!.headers)).toBe(false);
  });

  it("reads the secrets once per batch", async () => {
    const hook = listen();
    // Reads only: the batch's answers are recorded afterwards in one write batch of their own.
    let queries = 0;
    const db = new Proxy(env.DB, {
      get(target, property) {
        if (property === "prepare")
          return (sql: string) => ((queries += /^\s*SELECT/i.test(sql) ? 1 : 0), target.prepare(sql));
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const messages = [1, 2, 3, 4].map((n) => ({ id: `m${n}`, body: webhookMessage("acme") }));
    const result = await deliver(messages, { DB: db });
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2", "m3", "m4"]);
    expect(queries).toBe(1);
    expect(hook.events.size).toBe(4);
  });

  it.each([
    ["a 500", 500],
    ["a 404", 404],
    ["a redirect (not followed)", 302],
    ["a network error", "network"],
    ["a timeout", "timeout"],
  ] as const)("retries after %s, with a delay that grows with the attempts", async (_, failWith) => {
    listen({ failFirst: 100, failWith });
    const result = await deliver(
      [1, 2, 3, 4, 5, 6, 7].map((attempts) => ({ id: `a${attempts}`, attempts, body: webhookMessage("acme") })),
    );
    expect(result.explicitAcks).toEqual([]);
    const delays = [1, 2, 3, 4, 5, 6, 7].map(
      (attempts) => result.retryMessages.find((retry) => retry.msgId === `a${attempts}`)?.delaySeconds,
    );
    expect(delays).toEqual([10, 20, 40, 80, 160, 320, 640]);
    expect(dlq.sent).toEqual([]);
  });

  it("acks a later attempt that succeeds", async () => {
    const hook = listen({ failFirst: 1 });
    const message = webhookMessage("acme");
    const first = await deliver([{ id: "x", attempts: 1, body: message }]);
    expect(first.retryMessages).toEqual([{ msgId: "x", delaySeconds: 10 }]);
    const second = await deliver([{ id: "x", attempts: 2, body: message }]);
    expect(second.explicitAcks).toEqual(["x"]);
    expect(hook.deliveries.map((delivery) => delivery.status)).toEqual([503, 204]);
    expect(new Set(hook.deliveries.map((delivery) => JSON.parse(delivery.body).id))).toEqual(
      new Set([message.event.id]),
    );
  });

  it("sends the last failed attempt to the dead-letter queue and acks it", async () => {
    listen({ failFirst: 100, failWith: 503 });
    const message = webhookMessage("acme");
    const result = await deliver([{ id: "last", attempts: 8, body: message }]);
    expect(result.explicitAcks).toEqual(["last"]);
    expect(result.retryMessages).toEqual([]);
    expect(dlq.sent).toEqual([{ ...message, deadLetter: { attempts: 8, error: "HTTP 503" } }]);
  });

  it("honours WEBHOOK_MAX_ATTEMPTS", async () => {
    listen({ failFirst: 100, failWith: "timeout" });
    const result = await deliver([{ id: "third", attempts: 3, body: webhookMessage("acme") }], {
      WEBHOOK_MAX_ATTEMPTS: "3",
    });
    expect(result.explicitAcks).toEqual(["third"]);
    expect(dlq.sent[0]!.deadLetter).toEqual({ attempts: 3, error: "timeout after 10 s" });
  });

  it("retries the last attempt when the dead-letter queue refuses it", async () => {
    listen({ failFirst: 100 });
    dlq.refuse = true;
    const result = await deliver([{ id: "last", attempts: 8, body: webhookMessage("acme") }]);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: "last", delaySeconds: 1280 }]);
  });

  it.each([
    ["an unknown client", () => webhookMessage("nobody"), "unknown client nobody"],
    ["a disabled client", () => webhookMessage("gone"), "client gone is disabled"],
    [
      "a private address",
      () => webhookMessage("acme", { url: "https://10.1.2.3/hook" }),
      "webhookUrl is not allowed: private address",
    ],
    [
      "plain http to a public host",
      () => webhookMessage("acme", { url: "http://hooks.example.com/" }),
      "webhookUrl is not allowed: scheme must be https",
    ],
  ])("dead-letters %s at once, without a request", async (_, make, error) => {
    const hook = listen();
    const message = make();
    const result = await deliver([{ id: "p", body: message }]);
    expect(result.explicitAcks).toEqual(["p"]);
    expect(hook.deliveries).toEqual([]);
    expect(dlq.sent).toEqual([{ ...message, deadLetter: { attempts: 1, error } }]);
  });

  it("dead-letters loopback when insecure webhooks are not allowed", async () => {
    const hook = listen();
    const result = await deliver([{ id: "l", body: webhookMessage("acme") }], { ALLOW_INSECURE_WEBHOOKS: "false" });
    expect(result.explicitAcks).toEqual(["l"]);
    expect(hook.deliveries).toEqual([]);
    expect(dlq.sent[0]!.deadLetter!.error).toBe("webhookUrl is not allowed: scheme must be https");
  });

  it("acks and drops malformed messages without delivering them", async () => {
    const hook = listen();
    const good = webhookMessage("acme");
    const malformed: unknown[] = [
      null,
      "hello",
      { clientId: "acme", url: good.url },
      { ...good, clientId: "" },
      { ...good, event: { ...good.event, type: "order.created" } },
      { ...good, event: { ...good.event, data: { orderId: "o" } } },
      { ...good, event: { ...good.event, createdAt: "yesterday" } },
    ];
    const result = await deliver([
      ...malformed.map((body, index) => ({ id: `bad${index}`, body })),
      { id: "good", body: good },
    ]);
    expect(result.explicitAcks.sort()).toEqual([...malformed.map((_, index) => `bad${index}`), "good"].sort());
    expect(result.retryMessages).toEqual([]);
    expect(hook.deliveries).toHaveLength(1);
    expect(dlq.sent).toEqual([]);
    expect(
      logs.filter((line) => line.startsWith("error") && line.includes("malformed webhook message dropped")),
    ).toHaveLength(malformed.length);
  });

  it("retries the whole batch when D1 cannot be read", async () => {
    const hook = listen();
    const broken = {
      prepare: () => {
        throw new Error("D1_ERROR: database unavailable");
      },
    } as unknown as D1Database;
    const result = await deliver(
      [
        { id: "d1", attempts: 2, body: webhookMessage("acme") },
        { id: "d2", body: webhookMessage("acme") },
      ],
      { DB: broken },
    );
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual(
      expect.arrayContaining([
        { msgId: "d1", delaySeconds: 20 },
        { msgId: "d2", delaySeconds: 10 },
      ]),
    );
    expect(hook.deliveries).toEqual([]);
  });

  it("answers each message of a mixed batch on its own", async () => {
    const hook = listen({ failFirst: 1 });
    const result = await deliver([
      { id: "fails", body: webhookMessage("acme") },
      { id: "bad", body: { nope: true } },
    ]);
    // One delivery fails (the receiver fails its first request), the malformed one is acked.
    expect(result.explicitAcks).toEqual(["bad"]);
    expect(result.retryMessages).toEqual([{ msgId: "fails", delaySeconds: 10 }]);
    hook.failFirst = 0;
    const again = await deliver([
      { id: "ok1", body: webhookMessage("acme") },
      { id: "ok2", body: webhookMessage("acme") },
    ]);
    expect(again.explicitAcks.sort()).toEqual(["ok1", "ok2"]);
  });
});

describe("the receiver's last answer, for the operator's order timeline", () => {
  /** A successful order's row in its client's books, and a message of its event for its shard. */
  async function bookedMessage() {
    const createdAt = Date.now();
    const write = bookedWriteOf("acme", { createdAt }, 3);
    await writeToBooks(env.BOOKS, write);
    const message = {
      ...webhookMessage("acme", {
        event: { data: { orderId: write.id, state: "successful", reference: write.reference } },
      }),
      orderCreatedAt: createdAt,
    };
    const answerOf = async (eventId: string) => (await bookedRow(env, write))?.deliveries[eventId];
    return { write, message, answerOf };
  }

  it("records each attempt's answer, a later answer replacing an earlier one and never the reverse", async () => {
    const { write, message, answerOf } = await bookedMessage();
    listen({ failFirst: 1, failWith: 503 });
    await deliver([{ id: "r", attempts: 1, body: message }]);
    expect(await answerOf(message.event.id)).toMatchObject({
      attempts: 1,
      outcome: "retrying",
      status: 503,
      error: "HTTP 503",
    });
    await deliver([{ id: "r", attempts: 2, body: message }]);
    const delivered = await answerOf(message.event.id);
    expect(delivered).toMatchObject({ attempts: 2, outcome: "delivered", status: 204, error: null });
    // An answer given before it, recorded late, changes nothing.
    await recordAnswers(env.BOOKS, [
      {
        ...delivered!,
        attempts: 3,
        outcome: "retrying",
        status: 500,
        answeredAt: delivered!.answeredAt - 1,
        clientId: "acme",
        orderId: write.id,
        orderCreatedAt: write.createdAt,
        state: "successful",
      },
    ]);
    expect(await answerOf(message.event.id)).toEqual(delivered);
    // A replayed dead letter starts at attempt 1 again: its later answer is the event's last.
    listen();
    await deliver([{ id: "replayed", attempts: 1, body: message }]);
    expect(await answerOf(message.event.id)).toMatchObject({ attempts: 1, outcome: "delivered", status: 204 });
  });

  it("records a timeout without a status, and a dead letter as given up", async () => {
    const { message, answerOf } = await bookedMessage();
    listen({ failFirst: 100, failWith: "timeout" });
    await deliver([{ id: "t", attempts: 8, body: message }]);
    expect(await answerOf(message.event.id)).toMatchObject({
      attempts: 8,
      outcome: "dead_lettered",
      status: null,
      error: "timeout after 10 s",
    });
  });

  it("writes no D1 row for an answer: D1's tables are as they were", async () => {
    const { message } = await bookedMessage();
    const tables = await d1RowCounts();
    listen();
    await deliver([{ id: "d", body: message }]);
    expect(await d1RowCounts()).toEqual(tables);
  });

  it("keeps each answer in the order's row in its client's books, the last one winning", async () => {
    const createdAt = Date.now();
    const write = bookedWriteOf("acme", { createdAt }, 3);
    await writeToBooks(env.BOOKS, write);
    const inBooks = async (eventId: string) => (await bookedRow(env, write))?.deliveries[eventId];
    const message = {
      ...webhookMessage("acme", {
        event: { data: { orderId: write.id, state: "successful", reference: write.reference } },
      }),
      orderCreatedAt: createdAt,
    };
    listen({ failFirst: 1, failWith: 503 });
    await deliver([{ id: "b", attempts: 1, body: message }]);
    expect(await inBooks(message.event.id)).toMatchObject({ attempts: 1, outcome: "retrying", status: 503 });
    await deliver([{ id: "b", attempts: 2, body: message }]);
    expect(await inBooks(message.event.id)).toMatchObject({
      attempts: 2,
      outcome: "delivered",
      status: 204,
      error: null,
    });
  });

  it("changes no delivery when the record cannot be written", async () => {
    const { message, answerOf } = await bookedMessage();
    listen();
    const failingBooks = new Proxy(env.BOOKS, {
      get: (target, name) =>
        name === "get"
          ? () => {
              throw new Error("books unavailable");
            }
          : (Reflect.get(target, name) as (...args: unknown[]) => unknown).bind(target),
    });
    const result = await deliver([{ id: "k", body: message }], { BOOKS: failingBooks });
    expect(result.explicitAcks).toEqual(["k"]);
    expect(await answerOf(message.event.id)).toBeUndefined();
    expect(logs.some((line) => line.includes("could not record webhook answers"))).toBe(true);
  });
});

/** Every D1 table's row count, by table. */
async function d1RowCounts(): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`,
  ).all<{ name: string }>();
  const counts: Record<string, number> = {};
  for (const { name } of results)
    counts[name] = (await env.DB.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).first<{ n: number }>())!.n;
  return counts;
}
