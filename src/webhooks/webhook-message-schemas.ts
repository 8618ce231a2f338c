import * as z from "zod";
import { ANNOUNCED_STATES, ORDER_EVENT_TYPES, type OrderEvent, type WebhookMessage } from "./events";

/** Validates what arrives on the webhook queue (a malformed message is acked and logged, never retried). */
export const OrderEventSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .describe("The event's id, also sent as `webhook-id`: the same on every retry and replay."),
  type: z.enum(ORDER_EVENT_TYPES).describe("`order.` and the state the order reached."),
  createdAt: z.number().int().nonnegative().describe("When the order reached the state: Unix time in milliseconds."),
  data: z.object({
    orderId: z.string().min(1).describe("The order's id, as `id` of the create answer."),
    state: z.enum(ANNOUNCED_STATES).describe("The state the order reached: one of the states a webhook announces."),
    reference: z.string().describe("The client's reference of the order."),
  }),
  livemode: z.boolean().describe("false for an event of the sandbox (sk_test_ keys, no real money), true in live."),
}) satisfies z.ZodType<OrderEvent>;

export const WebhookMessageSchema = z.object({
  clientId: z.string().min(1),
  url: z.string().min(1).max(2048),
  event: OrderEventSchema,
  orderCreatedAt: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("When the order was created (Unix ms): the day of its client's books that keeps the answer."),
}) satisfies z.ZodType<WebhookMessage>;

/**
 * What the consumer accepts from the queue: a WebhookMessage, or one queued (or dead-lettered) before
 * events carried `livemode`, which the consumer completes with its own deployment's mode.
 */
export const QueuedWebhookMessageSchema = WebhookMessageSchema.extend({
  event: OrderEventSchema.extend({ livemode: z.boolean().optional() }),
});

/** Why and after how many attempts the consumer gave a message up (absent when the Queue moved it itself). */
export const DeadLetterInfoSchema = z.object({
  attempts: z.number().int().positive(),
  error: z.string().max(1000),
});
export type DeadLetterInfo = z.infer<typeof DeadLetterInfoSchema>;

/** What travels on the dead-letter queue: the original message, plus `deadLetter` when the consumer sent it. */
export const DeadLetterMessageSchema = QueuedWebhookMessageSchema.extend({
  deadLetter: DeadLetterInfoSchema.optional(),
});
export type DeadLetterMessage = z.infer<typeof DeadLetterMessageSchema>;
