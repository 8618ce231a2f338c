/** Examples of the account webhook endpoints' routes (test/openapi/examples.test.ts checks them against real answers). */
const ENDPOINT = {
  id: "we_7d3f9a1c2b4e4d6f8a0b1c2d3e4f5a6b",
  url: "https://example.com/hooks",
  eventTypes: ["order.successful", "order.failed", "wallet.low"],
  createdAt: 1795351330123,
  updatedAt: 1795351330123,
  secretRotatedAt: null,
};
const SECRET = "whsec_5VoSrQCUh+8QHIUCFR7NMMHEGAfAFu7ZEimneWgPebc=";

export const endpointExamples = {
  createWebhookEndpoint: {
    request: { url: ENDPOINT.url, eventTypes: ENDPOINT.eventTypes },
    data: { endpoint: { ...ENDPOINT, secret: SECRET } },
  },
  listWebhookEndpoints: { data: { endpoints: [ENDPOINT] } },
  updateWebhookEndpoint: {
    request: { eventTypes: ["order.successful", "order.failed", "wallet.low", "wallet.funded"] },
    data: {
      endpoint: {
        ...ENDPOINT,
        eventTypes: ["order.successful", "order.failed", "wallet.funded", "wallet.low"],
        updatedAt: 1795351390000,
      },
    },
  },
  deleteWebhookEndpoint: { data: { id: ENDPOINT.id, deleted: true } },
  rotateWebhookEndpointSecret: {
    data: {
      endpoint: {
        ...ENDPOINT,
        updatedAt: 1795351390000,
        secretRotatedAt: 1795351390000,
        secret: "whsec_i1PA/S2sBB1e9oLQoP6Bta4Z8ai0fdVNnZroQ+TCNB0=",
      },
    },
  },
  testWebhookEndpoint: {
    data: { eventId: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e", delivered: true, status: 204, error: null },
  },
};
