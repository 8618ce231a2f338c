/**
 * The example of GET /events in GET /openapi.json: a page of one event, the example order's end, as the list
 * shows it, with the cursor of the next page. test/openapi/examples.test.ts checks it against a real answer.
 */
export const eventExamples = {
  listEvents: {
    data: {
      events: [
        {
          id: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
          type: "order.successful",
          createdAt: 1795351330123,
          data: {
            orderId: "ord_0f3c9a6e1b2d4c5f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f",
            state: "successful",
            reference: "po-2026-0042",
          },
          livemode: false,
        },
      ],
      next: "1795351330123.evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
    },
  },
};
