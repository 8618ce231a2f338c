/**
 * The client's events as GET /events lists them and an account endpoint receives them: the order events of
 * the webhooks (OrderEventSchema), and the account's own (wallet.funded, wallet.low, delivery.failed).
 * Loaded with GET /events's first request or with the document.
 */
import * as z from "zod";
import {
  EVENT_TYPES,
  type EventType,
  type DeliveryFailedEvent,
  type WalletFundedEvent,
  type WalletLowEvent,
} from "./events";
import { OrderEventSchema } from "./webhook-message-schemas";

const EventId = z.string().min(1).max(200).describe("The event's id, also sent as `webhook-id`.");
const At = z.number().int().nonnegative().describe("When it happened: Unix time in milliseconds.");
const Livemode = z.boolean().describe("false for an event of the sandbox, true in live.");
const Amount = z.string().describe("An exact decimal in the wallet's currency.");

export const WalletFundedEventSchema = z.object({
  id: EventId,
  type: z.literal("wallet.funded"),
  createdAt: At,
  data: z.object({
    currency: z.string().describe("The wallet's currency."),
    amount: Amount.describe("What was credited: an exact decimal in the wallet's currency."),
    balance: Amount.describe("The balance after it: an exact decimal in the wallet's currency."),
    note: z.string().nullable().describe("The note the operator wrote for you (null: none)."),
  }),
  livemode: Livemode,
}) satisfies z.ZodType<WalletFundedEvent>;

export const WalletLowEventSchema = z.object({
  id: EventId,
  type: z.literal("wallet.low"),
  createdAt: At,
  data: z.object({
    currency: z.string().describe("The wallet's currency."),
    balance: Amount.describe("The balance that went below the threshold."),
    threshold: Amount.describe("Your threshold (PUT /wallets/{currency}/alert)."),
  }),
  livemode: Livemode,
}) satisfies z.ZodType<WalletLowEvent>;

export const DeliveryFailedEventSchema = z.object({
  id: EventId,
  type: z.literal("delivery.failed"),
  createdAt: At,
  data: z.object({
    eventId: z.string().describe("The event that could not be delivered."),
    eventType: z.enum(EVENT_TYPES).describe("Its type."),
    endpointId: z.string().nullable().describe("The account endpoint it was for; null for an order's `webhookUrl`."),
    url: z.string().describe("Where it was sent."),
    attempts: z.number().int().nonnegative().describe("Attempts made before it was given up."),
    error: z.string().describe("What went wrong at the last attempt."),
  }),
  livemode: Livemode,
}) satisfies z.ZodType<DeliveryFailedEvent>;

/** Any event of the client. */
export const ClientEventSchema = z.union([
  OrderEventSchema,
  WalletFundedEventSchema,
  WalletLowEventSchema,
  DeliveryFailedEventSchema,
]);

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** `type`: one or more of EVENT_TYPES, comma-separated (the route checks each: an unknown one is a 400). */
const Types = z
  .string()
  .min(1)
  .max(400)
  .describe(
    `Only events of these types, comma-separated: any of ${EVENT_TYPES.map((type) => `\`${type}\``).join(", ")}.`,
  )
  .meta({ examples: ["order.failed,wallet.low"] });

/** The types `type` names, or null when one of them is not a type of event. */
export function typesOf(text: string): EventType[] | null {
  const known: ReadonlySet<string> = new Set(EVENT_TYPES);
  const named = text.split(",").map((type) => type.trim());
  return named.every((type) => known.has(type)) ? [...new Set(named as EventType[])] : null;
}

export const ListEventsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Page size, 1..100, default 100."),
  after: z.string().min(1).max(160).optional().describe("Cursor: the `next` of the previous page of the same list."),
  type: Types.optional(),
  createdFrom: Millis.optional().describe("Only events at or after this time (ms since the epoch)."),
  createdTo: Millis.optional().describe("Only events at or before this time (ms since the epoch)."),
});

export const EventListData = z.object({
  events: z.array(ClientEventSchema).describe("Newest first: by `createdAt`, then `id`. The last 30 days."),
  next: z.string().nullable().describe("Cursor of the next page (pass as `after`), null on the last page."),
});
