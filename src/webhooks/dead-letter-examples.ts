/**
 * Examples of the operator dead-letter routes in GET /openapi.json, derived from one fixture: a webhook
 * message as the dead-letter queue hands it over after its last attempt, kept as the consumer keeps it
 * (deadLetterRowOf) and shown as the routes show it (deadLetterOf), then replayed. test/openapi/examples.test.ts
 * hands the same message to the consumer and checks each example against the real answer, value for value
 * but for ids and times.
 */
import type { RouteExample } from "../http/route";
import { deadLetterOf, deadLetterRowOf } from "./dead-letter-store";

/** The fixture: the message of an order's order.successful, which its receiver answered 503 eight times. */
export const EXAMPLE_DEAD_LETTER_MESSAGE = {
  clientId: "acme",
  url: "https://hooks.acme.test/orders",
  event: {
    id: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
    type: "order.successful",
    createdAt: 1795345079774,
    data: { orderId: "ord_1", state: "successful", reference: "po-2026-0042" },
  },
  deadLetter: { attempts: 8, error: "HTTP 503" },
} as const;

const FAILED_AT = EXAMPLE_DEAD_LETTER_MESSAGE.event.createdAt;
const kept = deadLetterRowOf(EXAMPLE_DEAD_LETTER_MESSAGE, FAILED_AT);
if (kept === null) throw new Error("the example dead letter is not a webhook message");
const row = { id: 1, ...kept, replayed_at: null };

export const deadLetterExamples = {
  adminListDeadLetters: { data: { deadLetters: [deadLetterOf(row)], nextBefore: null } },
  adminReplayDeadLetter: { data: { deadLetter: deadLetterOf({ ...row, replayed_at: FAILED_AT + 48 }) } },
} satisfies Record<string, RouteExample>;
