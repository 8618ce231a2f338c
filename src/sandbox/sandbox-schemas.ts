/**
 * Requests and answers of the sandbox helpers (sandbox-routes.ts). Built only when a /sandbox/ route or
 * GET /openapi.json first needs them: the helpers load on first use.
 */
import * as z from "zod";
import { Currency, CurrencyCode } from "../pricing/amount-schemas";
import { AmountInput } from "../wallets/wallet-admin-schemas";
import { ORDER_EVENT_TYPES } from "../webhooks/events";
import { OrderEventSchema } from "../webhooks/webhook-message-schemas";
import { BOUNDS } from "../orders/requests";

export const SandboxWalletParams = z.object({ currency: Currency.meta({ examples: ["USD"] }) });

export const SandboxTopUpRequest = z.strictObject({
  amount: AmountInput.describe("What to credit, in the wallet's currency: positive, at most 1000000 per top-up."),
  idempotencyKey: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe(
      "The top-up's idempotency key, if not sent as the Idempotency-Key header (one of the two is required; both must agree).",
    ),
});

export const SandboxTopUpData = z.object({
  currency: CurrencyCode,
  amount: z.number().describe("What this top-up credited (on a replay, what the first one did)."),
  balance: z.number().describe("The wallet's balance now."),
  idempotencyKey: z.string(),
  replayed: z.boolean().describe("true when the key had been used: nothing was added."),
});

export const SandboxOrderParams = z.object({
  orderId: z
    .string()
    .min(BOUNDS.orderId.min)
    .max(BOUNDS.orderId.max)
    .meta({
      description: "The order's id, as `id` of the create answer.",
      examples: ["ord_0f3c9a6e1b2d4c5f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f"],
    }),
});

export const TestWebhookRequest = z.strictObject({
  type: z.enum(ORDER_EVENT_TYPES).describe("The event type to send an example of."),
  url: z.string().min(1).max(2048).describe("Where to POST it: the same URL rules as an order's webhookUrl."),
});

export const TestWebhookData = z.object({
  event: OrderEventSchema.describe("The event sent, exactly as its body was (an example: its order does not exist)."),
  delivered: z.boolean().describe("true when the receiver answered 2xx within 10 seconds."),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when it did not answer."),
  error: z
    .string()
    .nullable()
    .describe("Why it was not delivered (a status, a timeout, a network error); null when delivered."),
});
