/**
 * The parts of GET /openapi.json that no route describes (src/http/openapi.ts): where the service runs,
 * the tag groups, the webhooks the service sends, the shared components (the request id header, the two
 * security schemes) and the document's info.
 */
import type * as z from "zod";
import type { JsonSchema } from "./openapi-schemas";

/** A tag of the document: a group of routes, with what it groups for a reader. */
export interface TagDoc {
  name: string;
  description: string;
  /**
   * The reader the tag is for (e.g. the client's API, the operator's): the document's `x-tagGroups`, which
   * the API reference at /docs shows as one heading per group rather than the tags interleaved.
   */
  group?: string;
}

/** A header the service sends with every delivery of a webhook. */
export interface WebhookHeader {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  example: string;
}

/** One event the service POSTs to a client's webhookUrl: the top-level `webhooks` of the document. */
export interface WebhookDoc {
  /** The event type, e.g. order.confirmed: the webhook's name in the document. */
  event: string;
  operationId: string;
  summary: string;
  description: string;
  /** The body's schema; give it a name in NamedSchemas to share it between events. */
  body: z.ZodType;
  headers: readonly WebhookHeader[];
  example: unknown;
  /** What the service does with the receiver's answer, by status range. */
  responses: Record<string, string>;
}

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.2.0";

/** Where the service runs: GET /openapi.json lists these under `servers`. */
export const SERVERS = [
  { url: "http://127.0.0.1:8787", description: "Local: `npm start` (wrangler dev with the demo seed)." },
  {
    url: "https://order-service.{account}.workers.dev",
    description:
      "Production: a placeholder. The Worker's workers.dev address (or its own route) once deployed with `wrangler deploy`.",
    variables: {
      account: { default: "your-account", description: "Your Cloudflare account's workers.dev subdomain." },
    },
  },
];

/** `x-tagGroups`: the tags that name a group, gathered under it in the order the groups first appear. */
export function tagGroups(tags: readonly TagDoc[]): { "x-tagGroups"?: { name: string; tags: string[] }[] } {
  const groups = new Map<string, string[]>();
  for (const { name, group } of tags) if (group !== undefined) groups.set(group, [...(groups.get(group) ?? []), name]);
  return groups.size === 0 ? {} : { "x-tagGroups": [...groups].map(([name, members]) => ({ name, tags: members })) };
}

export function webhookOperation(hook: WebhookDoc, bodyRef: JsonSchema): JsonSchema {
  return {
    operationId: hook.operationId,
    summary: hook.summary,
    description: hook.description,
    tags: ["Webhooks"],
    security: [],
    parameters: hook.headers.map(({ name, description, schema, example }) => ({
      name,
      in: "header",
      required: true,
      description,
      schema,
      example,
    })),
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: bodyRef,
          examples: { [hook.event]: { summary: hook.summary, value: hook.example } },
        },
      },
    },
    responses: Object.fromEntries(
      Object.entries(hook.responses).map(([status, description]) => [status, { description }]),
    ),
  };
}

/** The document's info: its title, version, description (Markdown) and licence. */
export function info(description: string): Record<string, unknown> {
  return {
    title: "Order service",
    version: API_VERSION,
    description,
    license: { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" },
  };
}

/** components.headers and components.securitySchemes: the request id every answer carries, and the two ways to authenticate. */
export const SHARED_COMPONENTS = {
  headers: {
    RequestId: {
      description: "The request's id: the one sent, if well-formed, or a generated one.",
      schema: { type: "string" },
    },
  },
  securitySchemes: {
    apiKey: {
      type: "http",
      scheme: "bearer",
      description:
        "A client API key: sk_live_... in live, sk_test_... in the sandbox (locally, sk_test_demo). A key of the other environment is 403 wrong_environment. A key may be limited to scopes (orders:write, orders:read, books:read; each operation's security requirement names the one it needs, and a key without it is 403 insufficient_scope) and to an IP allow-list (a request from outside it is 403 ip_not_allowed).",
    },
    adminToken: {
      type: "http",
      scheme: "bearer",
      description:
        "A named operator's token (opt_..., made by POST /admin/operators and shown once), whose role (viewer, operator or admin) must reach the route's; or the ADMIN_TOKEN Worker secret (.dev.vars locally), the break-glass admin that creates the first operators. Every change is audited under the operator's id and name.",
    },
  },
};
