/**
 * Examples of the operator dead-letter routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

export const deadLetterExamples = {
  adminListDeadLetters: {
    data: {
      deadLetters: [
        {
          id: 1,
          eventId: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
          clientId: "acme",
          url: "https://hooks.acme.test/orders",
          message: {
            clientId: "acme",
            url: "https://hooks.acme.test/orders",
            event: {
              id: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
              type: "order.successful",
              createdAt: 1795345079774,
              data: {
                orderId: "ord_1",
                state: "successful",
                reference: "po-2026-0042",
              },
            },
          },
          attempts: 8,
          lastError: "HTTP 503",
          failedAt: 1795345079774,
          replayedAt: null,
        },
      ],
      nextBefore: null,
    },
  },
  adminReplayDeadLetter: {
    data: {
      deadLetter: {
        id: 1,
        eventId: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
        clientId: "acme",
        url: "https://hooks.acme.test/orders",
        message: {
          clientId: "acme",
          url: "https://hooks.acme.test/orders",
          event: {
            id: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
            type: "order.successful",
            createdAt: 1795345079774,
            data: {
              orderId: "ord_1",
              state: "successful",
              reference: "po-2026-0042",
            },
          },
        },
        attempts: 8,
        lastError: "HTTP 503",
        failedAt: 1795345079774,
        replayedAt: 1795345079822,
      },
    },
  },
} satisfies Record<string, RouteExample>;
