/**
 * Requests and answers of the account webhook endpoints (endpoint-routes.ts). Loaded with the routes' first
 * request or with the document.
 */
import * as z from "zod";
import { EVENT_TYPES } from "./events";
import { MAX_ENDPOINTS } from "./endpoint-store";

const Url = z
  .string()
  .min(1)
  .max(2048)
  .describe("Where to POST the events: an absolute https URL, by the same rules as an order's webhookUrl.")
  .meta({ examples: ["https://example.com/hooks"] });

const EventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .describe("The types of event the endpoint receives: one or more, each once.")
  .meta({ examples: [["order.successful", "order.failed", "wallet.low"]] });

export const EndpointParams = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "The endpoint's id.", examples: ["we_7d3f9a1c2b4e4d6f8a0b1c2d3e4f5a6b"] }),
});

export const CreateEndpointRequest = z.strictObject({ url: Url, eventTypes: EventTypes });

export const UpdateEndpointRequest = z
  .strictObject({ url: Url.optional(), eventTypes: EventTypes.optional() })
  .refine((body) => body.url !== undefined || body.eventTypes !== undefined, {
    message: "give url, eventTypes or both",
  });

export const EndpointView = z.object({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.enum(EVENT_TYPES)),
  createdAt: z.number().int().describe("Unix ms."),
  updatedAt: z.number().int().describe("Unix ms of the last change (url, types or secret)."),
  secretRotatedAt: z
    .number()
    .int()
    .nullable()
    .describe("Unix ms of the last rotation; for 24 hours after it the previous secret signs too."),
});

export const EndpointWithSecret = EndpointView.extend({
  secret: z.string().describe("The signing secret, `whsec_` + base64 of 32 bytes: shown in this answer only. Keep it."),
});

export const EndpointData = z.object({ endpoint: EndpointView });
export const EndpointSecretData = z.object({ endpoint: EndpointWithSecret });
export const EndpointListData = z.object({
  endpoints: z.array(EndpointView).describe(`Oldest first; at most ${MAX_ENDPOINTS}.`),
});
export const EndpointDeletedData = z.object({ id: z.string(), deleted: z.literal(true) });

export const EndpointTestData = z.object({
  eventId: z.string().describe("The id of the test event sent (`webhook-id`)."),
  delivered: z.boolean().describe("true when the receiver answered 2xx within 10 seconds."),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when it did not answer."),
  error: z.string().nullable().describe("Why it was not delivered; null when delivered."),
});
