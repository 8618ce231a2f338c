/**
 * The webhooks of GET /openapi.json: each order event the service POSTs to an order's webhookUrl, its body
 * (OrderEventSchema, the schema the queue consumer validates) and the Standard Webhooks headers.
 */
import type { WebhookDoc, WebhookHeader } from "../http/openapi";
import type { OrderEventType } from "./events";
import { OrderEventSchema } from "./webhook-message-schemas";
import { DeliveryFailedEventSchema, WalletFundedEventSchema, WalletLowEventSchema } from "./event-schemas";

/** The secret the examples are signed with (a made-up one, of the form every client secret has). */
export const EXAMPLE_SECRET = "whsec_5VoSrQCUh+8QHIUCFR7NMMHEGAfAFu7ZEimneWgPebc=";

export const WEBHOOK_HEADERS: readonly WebhookHeader[] = [
  {
    name: "webhook-id",
    description:
      "The event's id (the body's `id`): the same on every retry and replay of the event, so a receiver can drop duplicates.",
    schema: { type: "string" },
    example: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
  },
  {
    name: "webhook-timestamp",
    description:
      "Unix time of this attempt, in seconds. Reject a delivery whose timestamp is more than a few minutes from your clock (replay protection).",
    schema: { type: "string", pattern: "^[0-9]+$" },
    example: "1795351330",
  },
  {
    name: "webhook-signature",
    description:
      "Standard Webhooks signature: `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part of the client's `whsec_<base64>` secret. For 24 hours after a secret rotation it lists two signatures separated by a space (new secret and old); accept the delivery if any one verifies. Any Standard Webhooks library (e.g. the `standardwebhooks` npm package) verifies it. The examples are signed with the secret `" +
      EXAMPLE_SECRET +
      "` over the example body as sent (`JSON.stringify` of it).",
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$" },
    example: "", // each event has its own: the signature of its example body (webhookDocs below)
  },
];

/** Each event, when it is sent, and the signature of its example body with EXAMPLE_SECRET (checked in test/openapi). */
const EVENTS: readonly { type: OrderEventType; when: string; signature: string }[] = [
  {
    type: "order.confirmed",
    when: "The order was confirmed and its wallet charged; fulfilment has started.",
    signature: "v1,Pk+jNn52DOAP6zI1ObcpDkDRO+hiJwkk15t0jtbD9SE=",
  },
  {
    type: "order.successful",
    when: "Every line was fulfilled: GET /order/get now shows all redeem codes.",
    signature: "v1,TMCTWw/Hx9u6ok4liNFvwzq/91Bd9Qk5PXH1Tvgi2yM=",
  },
  {
    type: "order.partial",
    when: "Some lines were fulfilled and the others refunded to the wallet: GET /order/get shows the codes issued.",
    signature: "v1,CWpTT4sN6LFg4KM9kqP6QcGgSvywmFa/QjpCazt2QzA=",
  },
  {
    type: "order.failed",
    when: "No line could be fulfilled; the whole charge was refunded to the wallet.",
    signature: "v1,Yz72x3a4HLoPoRI9QarOL7ybRILZUl4rDniIfoPGvCg=",
  },
  {
    type: "order.rejected",
    when: "The order expired before it was confirmed; nothing was charged and its reserved codes were released.",
    signature: "v1,g3v/Rj9/E+fdVIM+U69xCATCjZG4knr+IAT3AZsB7mc=",
  },
];

const RESPONSES = {
  "2XX": "Delivered: any 2xx answer within 10 seconds ends the delivery of this event.",
  "4XX":
    "Not delivered: any other status (or no answer within 10 seconds) is retried with backoff (10 s doubling up to 1 h) until WEBHOOK_MAX_ATTEMPTS (default 8), then dead-lettered for the operator to replay.",
  "5XX": "Not delivered: retried like a 4XX.",
};

export const webhookDocs: WebhookDoc[] = EVENTS.map(({ type, when, signature }) => {
  const state = type.slice("order.".length);
  return {
    event: type,
    operationId: `${state}Webhook`,
    summary: `Order ${state}`,
    description: `${when} POSTed to the order's webhookUrl as JSON with the Standard Webhooks headers; the body's \`type\` is \`${type}\` and \`data.state\` is \`${state}\`. Events of one order may arrive out of order or more than once: order them by \`createdAt\` and drop duplicates by \`id\` (or read GET /order/get).`,
    body: OrderEventSchema,
    headers: WEBHOOK_HEADERS.map((header) =>
      header.name === "webhook-signature" ? { ...header, example: signature } : header,
    ),
    example: {
      id: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
      type,
      createdAt: 1795351330123,
      data: {
        orderId: "ord_0f3c9a6e1b2d4c5f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f",
        state,
        reference: "po-2026-0042",
      },
      livemode: false,
    },
    responses: RESPONSES,
  };
});

const ACCOUNT_EXAMPLE_ID = "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e";

/** The account's own events (docs/webhooks.md, "Account events"): sent to the client's account endpoints. */
const ACCOUNT_EVENTS = [
  {
    event: "wallet.funded",
    operationId: "walletFundedWebhook",
    summary: "Wallet funded",
    description:
      "The operator topped up a wallet or credited it by an adjustment. `data.note` is the note written for you (null if none), never the operator's internal reason. POSTed to your account endpoints that take `wallet.funded`, signed with the endpoint's secret.",
    body: WalletFundedEventSchema,
    signature: "v1,lEivvGfkpLJMFlpmCCaF8WpxDgBamIR0pMI7Vr27wAs=",
    data: { currency: "USD", amount: "500", balance: "1250.5", note: "Invoice 2026-001 paid" },
  },
  {
    event: "wallet.low",
    operationId: "walletLowWebhook",
    summary: "Wallet low",
    description:
      "The wallet's balance went below your threshold (PUT /wallets/{currency}/alert): once per crossing, at most once per 24 hours; back at or above it re-arms. POSTed to your account endpoints that take `wallet.low`.",
    body: WalletLowEventSchema,
    signature: "v1,3QmmX1jxi6NpHigW6vcgKp8i1i3KBDVQgtmoAv5qGpY=",
    data: { currency: "USD", balance: "95", threshold: "100" },
  },
  {
    event: "delivery.failed",
    operationId: "deliveryFailedWebhook",
    summary: "Delivery failed",
    description:
      "A delivery was given up after its last attempt (an order's webhookUrl, or an account endpoint). POSTed to your account endpoints that take `delivery.failed`; none is sent for the failure of a `delivery.failed` itself.",
    body: DeliveryFailedEventSchema,
    signature: "v1,3Cgx7PDUJQarbGbY340PUoPKrYl38dJrXldsUmxpuWQ=",
    data: {
      eventId: "evt_0a1b2c3d4e5f40718293a4b5c6d7e8f9",
      eventType: "order.confirmed",
      endpointId: "we_7d3f9a1c2b4e4d6f8a0b1c2d3e4f5a6b",
      url: "https://example.com/hooks",
      attempts: 8,
      error: "HTTP 503",
    },
  },
] as const;

/** The account events' webhooks of the document, after the order events'. */
export const accountWebhookDocs: WebhookDoc[] = ACCOUNT_EVENTS.map(({ signature, data, ...doc }) => ({
  ...doc,
  headers: WEBHOOK_HEADERS.map((header) =>
    header.name === "webhook-signature" ? { ...header, example: signature } : header,
  ),
  example: { id: ACCOUNT_EXAMPLE_ID, type: doc.event, createdAt: 1795351330123, data, livemode: false },
  responses: RESPONSES,
}));
