/** Requests and responses of the operator's setting of the books' retention. */
import * as z from "zod";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "./retention-rules";

export const RetentionRequest = z.strictObject({
  days: z
    .number()
    .int()
    .min(MIN_RETENTION_DAYS)
    .max(MAX_RETENTION_DAYS)
    .nullable()
    .describe(
      `Days of books kept, today included: ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}; null keeps everything (the default).`,
    )
    .meta({ examples: [400] }),
});

export const RetentionData = z.object({
  days: z.number().int().nullable().describe("Days kept, today included; null: everything is kept."),
  keptFrom: z
    .number()
    .int()
    .nullable()
    .describe("Unix ms of the start of the oldest UTC day kept now; null: everything is kept."),
  setAt: z.number().int().nullable().describe("Unix ms of the last change; null when never set or removed."),
  setBy: z.string().nullable().describe("Who set it (the audit log's actor); null when never set or removed."),
});
