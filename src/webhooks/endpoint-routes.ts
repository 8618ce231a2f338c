/**
 * The calling client's account webhook endpoints (docs/api.md, "Account webhooks"): each receives every
 * event of the client whose type it subscribes to (src/webhooks/endpoint-fanout.ts), signed with its own
 * secret. Another client's endpoint is answered as an unknown one, in the sandbox and in live.
 */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { once } from "../kernel/once";
import { randomHex } from "../kernel/crypto";
import { serviceMode } from "../kernel/service-mode";
import { newWebhookSecret } from "../clients/client-secrets";
import { checkWebhookUrl } from "./url-policy";
import { EVENT_TYPES, type EventType } from "./events";
import { endpointView, typesOnce } from "./endpoint-rules";
import {
  deleteEndpoint,
  endpointOfClient,
  endpointsOf,
  insertEndpoint,
  MAX_ENDPOINTS,
  rotateEndpointSecret,
  updateEndpoint,
  type StoredEndpoint,
} from "./endpoint-store";
import { forgetEndpoints } from "./endpoint-cache";

const schemas = once(() => import("./endpoint-schemas"));
const examples = async () => (await import("./endpoint-examples")).endpointExamples;
const tester = once(() => import("./endpoint-test"));

const TAG = "Account webhooks";
const ID_CHECKS = [
  { when: "`id`", codes: ["invalid_parameters"] },
  {
    when: "An endpoint of the calling client has that id (another client's is answered as an unknown one)",
    codes: ["webhook_endpoint_not_found"],
  },
] as const;

function checkUrl(env: Env, url: string): void {
  const problem = checkWebhookUrl(url, env.ALLOW_INSECURE_WEBHOOKS === "true");
  if (problem !== null) fail("invalid_webhook_url", { reason: problem }, `webhookUrl is not allowed: ${problem}`);
}

async function callersEndpoint(env: Env, clientId: string, id: string): Promise<StoredEndpoint> {
  const endpoint = await endpointOfClient(env.DB, clientId, id);
  if (endpoint === null) fail("webhook_endpoint_not_found", { endpointId: id });
  return endpoint;
}

const types = (given: readonly EventType[]) => typesOnce(given, EVENT_TYPES);

/** This file's routes, each with its description in GET /openapi.json. */
export const endpointRoutes: Route[] = [
  route(
    {
      method: "POST",
      path: "/webhook-endpoints",
      scope: "orders:write",
      operationId: "createWebhookEndpoint",
      example: async () => (await examples()).createWebhookEndpoint,
      tag: TAG,
      summary: "Register an endpoint for your account's events",
      description: `Registers a URL that receives every event of the calling client whose type it lists (order state changes of every order, whether or not the order named a \`webhookUrl\`; \`wallet.funded\`, \`wallet.low\`, \`delivery.failed\`), signed as Standard Webhooks with the endpoint's own secret, delivered and retried as order webhooks are. The secret is in this answer only. At most ${MAX_ENDPOINTS} endpoints a client. An endpoint starts receiving within 30 seconds.`,
      auth: "apiKey",
      body: async () => (await schemas()).CreateEndpointRequest,
      data: async () => (await schemas()).EndpointSecretData,
      messages: ["Webhook endpoint created"],
      checks: [
        {
          when: "The body: `url` and `eventTypes` (known types only)",
          codes: ["malformed_json", "invalid_request_body"],
        },
        { when: "`url`, by the rules of an order's webhookUrl", codes: ["invalid_webhook_url"] },
        { when: `The client has ${MAX_ENDPOINTS} endpoints already`, codes: ["webhook_endpoint_limit"] },
      ],
    },
    async ({ body, client, env, ok }) => {
      checkUrl(env, body.url);
      const now = Date.now();
      const endpoint: StoredEndpoint = {
        id: `we_${randomHex(16)}`,
        clientId: client.id,
        url: body.url,
        eventTypes: types(body.eventTypes),
        secret: newWebhookSecret(),
        previousSecret: null,
        rotatedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await insertEndpoint(env.DB, endpoint))) fail("webhook_endpoint_limit", { limit: MAX_ENDPOINTS });
      forgetEndpoints(client.id);
      return ok("Webhook endpoint created", { endpoint: { ...endpointView(endpoint), secret: endpoint.secret } });
    },
  ),
  route(
    {
      method: "GET",
      path: "/webhook-endpoints",
      scope: "books:read",
      operationId: "listWebhookEndpoints",
      example: async () => (await examples()).listWebhookEndpoints,
      tag: TAG,
      summary: "Your account's webhook endpoints",
      description: "The calling client's endpoints, oldest first, without their secrets.",
      auth: "apiKey",
      data: async () => (await schemas()).EndpointListData,
      messages: ["Webhook endpoints"],
      errors: [],
    },
    async ({ client, env, ok }) =>
      ok("Webhook endpoints", { endpoints: (await endpointsOf(env.DB, client.id)).map(endpointView) }),
  ),
  route(
    {
      method: "PATCH",
      path: "/webhook-endpoints/:id",
      scope: "orders:write",
      operationId: "updateWebhookEndpoint",
      example: async () => (await examples()).updateWebhookEndpoint,
      tag: TAG,
      summary: "Change an endpoint's URL or event types",
      description: "Changes what is given of `url` and `eventTypes`; the secret stays. Takes effect within 30 seconds.",
      auth: "apiKey",
      params: async () => (await schemas()).EndpointParams,
      body: async () => (await schemas()).UpdateEndpointRequest,
      data: async () => (await schemas()).EndpointData,
      messages: ["Webhook endpoint updated"],
      checks: [
        ...ID_CHECKS.slice(0, 1),
        { when: "The body: `url`, `eventTypes` or both", codes: ["malformed_json", "invalid_request_body"] },
        { when: "`url`, by the rules of an order's webhookUrl", codes: ["invalid_webhook_url"] },
        ...ID_CHECKS.slice(1),
      ],
    },
    async ({ params: { id }, body, client, env, ok }) => {
      if (body.url !== undefined) checkUrl(env, body.url);
      const current = await callersEndpoint(env, client.id, id);
      const change = { url: body.url ?? current.url, eventTypes: types(body.eventTypes ?? current.eventTypes) };
      const now = Date.now();
      if (!(await updateEndpoint(env.DB, client.id, id, change, now)))
        fail("webhook_endpoint_not_found", { endpointId: id });
      forgetEndpoints(client.id);
      return ok("Webhook endpoint updated", { endpoint: endpointView({ ...current, ...change, updatedAt: now }) });
    },
  ),
  route(
    {
      method: "DELETE",
      path: "/webhook-endpoints/:id",
      scope: "orders:write",
      operationId: "deleteWebhookEndpoint",
      example: async () => (await examples()).deleteWebhookEndpoint,
      tag: TAG,
      summary: "Delete an endpoint",
      description:
        "Deletes the endpoint: it receives nothing more, including deliveries already queued for it (within 30 seconds for events being announced).",
      auth: "apiKey",
      params: async () => (await schemas()).EndpointParams,
      data: async () => (await schemas()).EndpointDeletedData,
      messages: ["Webhook endpoint deleted"],
      checks: [...ID_CHECKS],
    },
    async ({ params: { id }, client, env, ok }) => {
      if (!(await deleteEndpoint(env.DB, client.id, id))) fail("webhook_endpoint_not_found", { endpointId: id });
      forgetEndpoints(client.id);
      return ok("Webhook endpoint deleted", { id, deleted: true as const });
    },
  ),
  route(
    {
      method: "POST",
      path: "/webhook-endpoints/:id/rotate-secret",
      scope: "orders:write",
      operationId: "rotateWebhookEndpointSecret",
      example: async () => (await examples()).rotateWebhookEndpointSecret,
      tag: TAG,
      summary: "Rotate an endpoint's signing secret",
      description:
        "Gives the endpoint a new secret, shown in this answer only. For the next 24 hours every delivery to it carries two signatures, `v1,<new> v1,<previous>`, so your receiver can switch at any time within that day; a second rotation within the day keeps only the secret it replaced.",
      auth: "apiKey",
      params: async () => (await schemas()).EndpointParams,
      data: async () => (await schemas()).EndpointSecretData,
      messages: ["Webhook endpoint secret rotated"],
      checks: [...ID_CHECKS],
    },
    async ({ params: { id }, client, env, ok }) => {
      const current = await callersEndpoint(env, client.id, id);
      const secret = newWebhookSecret();
      const now = Date.now();
      if (!(await rotateEndpointSecret(env.DB, client.id, id, secret, now)))
        fail("webhook_endpoint_not_found", { endpointId: id });
      const rotated = { ...current, previousSecret: current.secret, secret, rotatedAt: now, updatedAt: now };
      return ok("Webhook endpoint secret rotated", { endpoint: { ...endpointView(rotated), secret } });
    },
  ),
  route(
    {
      method: "POST",
      path: "/webhook-endpoints/:id/test",
      scope: "orders:write",
      operationId: "testWebhookEndpoint",
      example: async () => (await examples()).testWebhookEndpoint,
      tag: TAG,
      summary: "Send a test event to an endpoint (sandbox)",
      description:
        "Sandbox only (404 in live): POSTs an example `order.confirmed` event to the endpoint once, now, signed with its secret as every delivery is, and answers what the receiver did. Not queued, not retried, and not in GET /events.",
      auth: "apiKey",
      params: async () => (await schemas()).EndpointParams,
      data: async () => (await schemas()).EndpointTestData,
      messages: ["Test event delivered", "Test event not delivered"],
      checks: [{ when: "The sandbox (in live the route is not found)", codes: ["route_not_found"] }, ...ID_CHECKS],
    },
    async ({ params: { id }, client, env, ok }) => {
      if (serviceMode(env) === "live") fail("route_not_found");
      const endpoint = await callersEndpoint(env, client.id, id);
      const sent = await (await tester()).sendTestEvent(env, endpoint);
      return ok(sent.delivered ? "Test event delivered" : "Test event not delivered", sent);
    },
  ),
];
