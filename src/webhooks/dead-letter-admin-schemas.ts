/** Dead-lettered webhooks as the operator API lists and replays them. */
import * as z from "zod";
import { ClientIdParam } from "../kernel/primitives";
import { QueuedWebhookMessageSchema } from "./webhook-message-schemas";

export const DeadLetterQuery = z.object({
  clientId: ClientIdParam.optional().describe("Only this client's dead letters."),
  status: z.enum(["pending", "replayed", "all"]).optional().describe("Default pending (not replayed yet)."),
  limit: z.coerce.number().int().min(1).max(200).optional().describe("Page size, 1..200, default 50."),
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Cursor: the `nextBefore` of the previous page (newest first)."),
});

export const DeadLetterParams = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .meta({ description: "The dead letter's id.", examples: [1] }),
});

export const DeadLetterView = z.object({
  id: z.number().int(),
  eventId: z.string(),
  clientId: z.string(),
  url: z.string(),
  message: QueuedWebhookMessageSchema.describe(
    "The queue message a replay sends again: the same event id, so receivers dedupe. A message dead-lettered before events carried `livemode` has none; it is delivered with the deployment's.",
  ),
  attempts: z
    .number()
    .int()
    .nullable()
    .describe("Delivery attempts made; null when the Queue dead-lettered the message by itself."),
  lastError: z.string(),
  failedAt: z.number().int(),
  replayedAt: z.number().int().nullable(),
});

export const DeadLetterPage = z.object({
  deadLetters: z.array(DeadLetterView),
  nextBefore: z.number().int().nullable().describe("Pass as `before` for the next page; null on the last page."),
});

export const ReplayedDeadLetter = z.object({ deadLetter: DeadLetterView });
