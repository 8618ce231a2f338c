/**
 * The OpenAPI 3.1 document of GET /openapi.json, generated from the routes themselves. Each domain's
 * routes file describes its routes (src/http/route.ts: method, path, handler, schemas, errors, summary),
 * the composition root (src/app.ts) gathers them with the named schemas and the webhooks
 * (src/document-parts.ts), and the route GET /openapi.json (src/docs/docs-routes.ts) builds the document
 * here, on its first request; this module knows no domain. Error bodies get one schema per code
 * (src/kernel/failure-details.ts: typed details, an example, retry advice); examples of routes live in each
 * domain's *-examples.ts. The checked-in copy is schema/openapi.json (regenerate: `npx vitest run
 * --project service test/openapi -u`, then `npm run client:types`); `npm run lint:openapi` lints it with
 * Redocly.
 */
import * as z from "zod";
import { ERROR_DETAILS, RETRY, errorExample } from "../kernel/failure-details";
import { ERRORS, type ErrorCode } from "./errors";
import { partErrors, schemaOf } from "./inputs";
import type { Loadable, ObjectSchema, Route, RouteDoc, RouteExample } from "./route";

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.2.0";

/** Response schemas that get a name under components.schemas wherever they appear, with that name. */
export type NamedSchemas = readonly (readonly [z.core.$ZodType, string])[];

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

/** What the composition root tells the builder besides the routes. */
export interface DocumentParts {
  named: NamedSchemas;
  /** Every tag a route may carry, in the order the document lists them. */
  tags: readonly TagDoc[];
  /** The document's info.description (Markdown). */
  description: string;
  /** The events the service POSTs to a client's webhookUrl: the document's top-level `webhooks`. */
  webhooks?: readonly WebhookDoc[];
}

/** `x-tagGroups`: the tags that name a group, gathered under it in the order the groups first appear. */
function tagGroups(tags: readonly TagDoc[]): { "x-tagGroups"?: { name: string; tags: string[] }[] } {
  const groups = new Map<string, string[]>();
  for (const { name, group } of tags) if (group !== undefined) groups.set(group, [...(groups.get(group) ?? []), name]);
  return groups.size === 0 ? {} : { "x-tagGroups": [...groups].map(([name, members]) => ({ name, tags: members })) };
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

type JsonSchema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** Drops zod's ±MAX_SAFE_INTEGER bounds of plain integers: true, and noise in a reader's eyes. */
function tidy({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.maximum === SAFE) delete jsonSchema.maximum;
  if (jsonSchema.minimum === -SAFE) delete jsonSchema.minimum;
}

function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function inline(schema: z.core.$ZodType, io: "input" | "output"): JsonSchema {
  return strip(
    z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "throw", override: tidy }) as JsonSchema,
  );
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

function envelope(data: z.core.$ZodType, messages: readonly string[] | undefined): z.ZodType {
  const message =
    messages !== undefined && messages.length > 0
      ? z.enum(messages as readonly string[] as [string, ...string[]])
      : z.string();
  return z.object({ message, data });
}

function errorName(code: ErrorCode): string {
  return `${code
    .split("_")
    .map((word) => pascal(word))
    .join("")}Error`;
}

/** The shape every error body has: what a client that knows no code can rely on. */
const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  description: "Every error answer. Branch on `code`; `message` is for people.",
  properties: {
    message: { type: "string", description: "Human-readable; some codes add what is wrong after the code's message." },
    code: { type: "string", description: "Stable machine-readable name: branch on this." },
    details: { type: "object", description: "What went wrong; its shape depends on `code`." },
  },
  required: ["message", "code"],
};

/** The body of one error code: the shared Error shape with its code and, where it has one, the shape of its details. */
function codeErrorSchema(code: ErrorCode): JsonSchema {
  const { schema, always } = ERROR_DETAILS[code];
  const retry = RETRY[code];
  const own: JsonSchema = {
    type: "object",
    properties: {
      code: { type: "string", const: code },
      ...(schema !== undefined ? { details: inline(schema, "output") } : {}),
    },
    required: ["code", ...(schema !== undefined && always === true ? ["details"] : [])],
  };
  return {
    description: `HTTP ${ERRORS[code].status}: ${ERRORS[code].message}.${retry !== undefined ? ` ${retry}` : ""}${schema === undefined ? " No details." : ""}`,
    allOf: [{ $ref: "#/components/schemas/Error" }, own],
    unevaluatedProperties: false,
  };
}

/**
 * Errors every route of its kind can answer, besides its own: those of its auth and of its declared parts.
 * A client's route not yet declared lists the 400 of its parameters among its own errors.
 */
function implicitErrors(doc: LoadedDoc): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (doc.auth === "apiKey") codes.push("unauthenticated", "wrong_environment", "rate_limited");
  if (doc.auth === "admin") codes.push("unauthenticated", "rate_limited");
  if (doc.auth === "admin" && doc.role !== "viewer") codes.push("forbidden");
  const parts = doc.declared || doc.auth === "admin" ? doc.parts : { body: doc.parts.body };
  codes.push(...partErrors({ ...parts, ...(doc.ownBodyErrors === true ? { ownBodyErrors: true } : {}) }));
  codes.push("server_error");
  return codes;
}

/** The errors a route answers itself: those it lists, or those its checks name. */
function ownErrors(doc: LoadedDoc): readonly ErrorCode[] {
  return doc.errors ?? [...new Set((doc.checks ?? []).flatMap((check) => check.codes))];
}

/** What an operator route's description says of who may call it. */
function roleSentence(role: RouteDoc["role"]): string | undefined {
  if (role === undefined) return undefined;
  const who = {
    viewer: "any operator (role `viewer` or above)",
    operator: "an operator with the role `operator` or `admin`",
    admin: "an operator with the role `admin`",
  }[role];
  const lesser = role === "viewer" ? "" : " A lesser role is 403 `forbidden`.";
  return `**Role:** ${who}, or ADMIN_TOKEN (break-glass).${lesser}`;
}

function describeCodes(codes: ErrorCode[]): string {
  return codes
    .map((code) => {
      const retry = RETRY[code];
      return `- \`${code}\`: ${ERRORS[code].message}${retry !== undefined ? ` (${retry})` : ""}`;
    })
    .join("\n");
}

/**
 * The content of a route's success answer, by media type, with its examples: the envelope (`envelope`, a
 * reference to its schema), a file, or both for a file route that also answers JSON when asked (`file.json`).
 */
function successContent(doc: LoadedDoc, envelope: JsonSchema | null): Record<string, unknown> {
  const okExamples: Record<string, unknown> = {};
  const fileExamples: Record<string, unknown> = {};
  if (doc.example !== undefined) {
    if (doc.file !== undefined) fileExamples.ok = { summary: doc.summary, value: doc.example.file };
    else if (envelope === null) okExamples.ok = { summary: doc.summary, value: doc.example.data };
    for (const [index, message] of (doc.messages ?? []).entries())
      okExamples[index === 0 ? "ok" : `ok${index + 1}`] = {
        summary: message,
        value: { message, data: doc.example.data },
      };
  }
  const withExamples = (examples: Record<string, unknown>) => (Object.keys(examples).length > 0 ? { examples } : {});
  const content: Record<string, unknown> = {};
  if (doc.file !== undefined)
    content[doc.file.mediaType] = {
      schema: { type: "string", description: doc.file.description },
      ...withExamples(fileExamples),
    };
  if (envelope !== null) content["application/json"] = { schema: envelope, ...withExamples(okExamples) };
  else if (doc.file === undefined)
    content["application/json"] = {
      schema: { type: "object", description: "An OpenAPI 3.1 document." },
      ...withExamples(okExamples),
    };
  return content;
}

/**
 * A route's description with its checks listed after it, from the codes it declares: each check's
 * condition with the status and code of every error it answers.
 */
function describeRoute(doc: LoadedDoc, codes: ErrorCode[]): string | undefined {
  if (doc.checks === undefined) return doc.description;
  const named = new Set(doc.checks.flatMap((check) => check.codes));
  const unknown = [...named].filter((code) => !codes.includes(code));
  if (unknown.length > 0) throw new Error(`${doc.operationId}: checks name ${unknown.join(", ")}, never answered`);
  const unnamed = [...ownErrors(doc)].filter((code) => !named.has(code));
  if (unnamed.length > 0) throw new Error(`${doc.operationId}: no check answers ${unnamed.join(", ")}`);
  const answered = (answers: readonly ErrorCode[]) =>
    answers.map((code) => `${ERRORS[code].status} \`${code}\``).join(", ");
  const lines = doc.checks.map(({ when, codes: answers }) => `- ${when}: ${answered(answers)}`);
  const list = `Checks, in the order they run (the first that fails answers):\n\n${lines.join("\n")}`;
  return doc.description === undefined ? list : `${doc.description}\n\n${list}`;
}

function parameters(doc: LoadedDoc, itty: string): JsonSchema[] {
  const names = [...itty.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const declared = Object.keys(doc.params?.shape ?? {});
  if (names.join() !== declared.join()) {
    throw new Error(
      `${doc.operationId}: path parameters ${names.join(",")} but the schema declares ${declared.join(",")}`,
    );
  }
  const out: JsonSchema[] = [];
  for (const [location, shape] of [
    ["path", doc.params?.shape ?? {}],
    ["query", doc.query?.shape ?? {}],
  ] as const) {
    for (const [name, field] of Object.entries(shape as Record<string, z.core.$ZodType>)) {
      const schema = inline(field, "input");
      // A parameter's description and example belong to the parameter, not to its schema.
      const { description, examples, ...rest } = schema;
      out.push({
        name,
        in: location,
        required: location === "path" || !z.safeParse(field, undefined).success,
        ...(typeof description === "string" ? { description } : {}),
        schema: rest,
        ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
      });
    }
  }
  for (const [name, { description, schema }] of Object.entries(doc.requestHeaders ?? {}))
    out.push({ name, in: "header", required: false, description, schema });
  return out;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
  [key: string]: unknown;
}

function webhookOperation(hook: WebhookDoc, bodyRef: JsonSchema): JsonSchema {
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

/** A route's description with what it hands over as loaders (its answer's schema, its example) loaded. */
type LoadedDoc = Omit<RouteDoc, "data" | "example" | "body" | "query" | "params"> & {
  data: z.core.$ZodType | null;
  params?: ObjectSchema;
  example?: RouteExample;
  body?: z.core.$ZodType;
  query?: ObjectSchema;
  /** Its parts as declared, for the errors of reading them. */
  parts: Pick<RouteDoc, "params" | "query" | "body">;
  /** Whether the router reads its parts (a declared route), rather than its handler. */
  declared: boolean;
};

async function loaded<T>(part: Loadable<T>): Promise<T> {
  return typeof part === "function" ? (part as () => Promise<T>)() : part;
}

/**
 * The document of the given routes, named response schemas and webhooks. Throws on what would make it
 * wrong: a method and path routed twice, an operationId used twice, path parameters that differ from the
 * route's params schema, a schema name used twice.
 */
export async function buildOpenApi(
  routes: readonly Route[],
  { named, tags, description, webhooks = [] }: DocumentParts,
): Promise<OpenApiDocument> {
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  for (const [schema, id] of named) outputs.add(schema, { id });
  const paths: Record<string, Record<string, unknown>> = {};
  const operations: { method: string; path: string; doc: LoadedDoc; okSchema: z.core.$ZodType | null }[] = [];
  const seen = new Set<string>();
  const loadedRoutes = await Promise.all(
    routes.map(async ({ data, example, body, query, params, handler, serve: _serve, ...route }) => ({
      ...route,
      ...(params !== undefined ? { params: (await schemaOf(params)) as ObjectSchema } : {}),
      data: data === null ? null : await loaded(data),
      ...(example !== undefined ? { example: await loaded(example) } : {}),
      ...(body !== undefined ? { body: await schemaOf(body) } : {}),
      ...(query !== undefined ? { query: (await schemaOf(query)) as ObjectSchema } : {}),
      parts: { params, query, body },
      declared: handler === undefined,
    })),
  );
  for (const route of loadedRoutes) {
    const { method, path: itty, ...doc } = route;
    if (!tags.some((tag) => tag.name === doc.tag))
      throw new Error(`${doc.operationId}: tag ${doc.tag} is not one of the document's tags`);
    if ((doc.auth === "admin") !== (doc.role !== undefined))
      throw new Error(`${doc.operationId}: an operator route, and only one, names the role it needs`);
    if (doc.file !== undefined && doc.data !== null && doc.file.json !== true)
      throw new Error(
        `${doc.operationId}: a route that answers a file has no envelope (data: null), unless asked for JSON`,
      );
    for (const key of [`${method} ${itty}`, `operationId ${doc.operationId}`]) {
      if (seen.has(key)) throw new Error(`${key} is described twice`);
      seen.add(key);
    }
    const name = pascal(doc.operationId);
    if (doc.body !== undefined) inputs.add(doc.body, { id: `${name}Request` });
    const okSchema = doc.data === null ? null : envelope(doc.data, doc.messages);
    if (okSchema !== null) outputs.add(okSchema, { id: `${name}Response` });
    operations.push({ method, path: itty, doc, okSchema });
  }
  const webhookBodies = new Map<WebhookDoc, string>();
  for (const hook of webhooks) {
    if (seen.has(`operationId ${hook.operationId}`))
      throw new Error(`operationId ${hook.operationId} is described twice`);
    seen.add(`operationId ${hook.operationId}`);
    const id = outputs.get(hook.body)?.id ?? `${pascal(hook.operationId)}Body`;
    if (!outputs.has(hook.body)) outputs.add(hook.body, { id });
    webhookBodies.set(hook, id);
  }
  const uri = (id: string) => `#/components/schemas/${id}`;
  const options = { target: "draft-2020-12" as const, unrepresentable: "throw" as const, override: tidy, uri };
  const inputSchemas = z.toJSONSchema(inputs, { ...options, io: "input" }).schemas as Record<string, JsonSchema>;
  const outputSchemas = z.toJSONSchema(outputs, { ...options, io: "output" }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  const errorCodes = new Set<ErrorCode>();
  const add = (id: string, schema: JsonSchema) => {
    if (schemas[id] !== undefined) throw new Error(`schema name ${id} is used twice`);
    schemas[id] = schema;
  };
  for (const [id, schema] of [...Object.entries(outputSchemas), ...Object.entries(inputSchemas)])
    add(id, strip(schema));

  for (const { method, path: itty, doc, okSchema } of operations) {
    const name = pascal(doc.operationId);
    const path = itty.replace(/:(\w+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };
    const content = successContent(doc, okSchema === null ? null : { $ref: uri(`${name}Response`) });
    responses[String(doc.status ?? 200)] = {
      description: doc.messages?.join(" | ") ?? doc.summary,
      headers: { ...requestId, ...(doc.headers ?? {}) },
      content,
    };
    const codes = [...new Set([...ownErrors(doc), ...implicitErrors(doc)])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
    for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
      const headers: Record<string, unknown> = { ...requestId };
      if (status === 429) headers["Retry-After"] = { description: "Seconds to wait.", schema: { type: "string" } };
      for (const code of statusCodes) errorCodes.add(code);
      const schema: JsonSchema =
        statusCodes.length === 1
          ? { $ref: uri(errorName(statusCodes[0]!)) }
          : {
              oneOf: statusCodes.map((code) => ({ $ref: uri(errorName(code)) })),
              discriminator: {
                propertyName: "code",
                mapping: Object.fromEntries(statusCodes.map((code) => [code, uri(errorName(code))])),
              },
            };
      responses[String(status)] = {
        description: describeCodes(statusCodes),
        headers,
        content: {
          "application/json": {
            schema,
            examples: Object.fromEntries(
              statusCodes.map((code) => [code, { summary: ERRORS[code].message, value: errorExample(code) }]),
            ),
          },
        },
      };
    }
    const lead = [doc.description, roleSentence(doc.role)].filter(Boolean).join("\n\n");
    const description = describeRoute({ ...doc, description: lead === "" ? undefined : lead }, codes);
    const operation: Record<string, unknown> = {
      operationId: doc.operationId,
      summary: doc.summary,
      ...(description !== undefined ? { description } : {}),
      tags: [doc.tag],
      security: doc.auth === "none" ? [] : [{ [doc.auth === "admin" ? "adminToken" : "apiKey"]: [] }],
    };
    const params = parameters(doc, itty);
    if (params.length > 0) operation.parameters = params;
    if (doc.body !== undefined) {
      const request = doc.example?.request;
      const content: Record<string, unknown> = {
        "application/json": {
          schema: { $ref: uri(`${name}Request`) },
          ...(request !== undefined ? { examples: { example: { summary: doc.summary, value: request } } } : {}),
        },
      };
      if (doc.csv === true) {
        const csv = doc.example?.csv;
        content["text/csv"] = {
          schema: { type: "string", description: "A header row naming value, pin and link, then one code per row." },
          ...(csv !== undefined ? { examples: { example: { summary: "Two codes as CSV", value: csv } } } : {}),
        };
      }
      operation.requestBody = { required: true, content };
    }
    operation.responses = responses;
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }
  add("Error", ERROR_SCHEMA);
  for (const code of errorCodes) add(errorName(code), codeErrorSchema(code));

  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  const sortedSchemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  const usedTags = new Set<string>([
    ...operations.map(({ doc }) => doc.tag),
    ...(webhooks.length > 0 ? ["Webhooks"] : []),
  ]);
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Order service",
      version: API_VERSION,
      description,
      license: { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" },
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: SERVERS,
    tags: tags.filter((tag) => usedTags.has(tag.name)).map(({ name, description }) => ({ name, description })),
    ...tagGroups(tags.filter((tag) => usedTags.has(tag.name))),
    paths: sortedPaths,
    ...(webhooks.length > 0
      ? {
          webhooks: Object.fromEntries(
            webhooks.map((hook) => [
              hook.event,
              { post: webhookOperation(hook, { $ref: uri(webhookBodies.get(hook)!) }) },
            ]),
          ),
        }
      : {}),
    components: {
      schemas: sortedSchemas,
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
            "A client API key: sk_live_... in live, sk_test_... in the sandbox (locally, sk_test_demo). A key of the other environment is 403 wrong_environment.",
        },
        adminToken: {
          type: "http",
          scheme: "bearer",
          description:
            "A named operator's token (opt_..., made by POST /admin/operators and shown once), whose role (viewer, operator or admin) must reach the route's; or the ADMIN_TOKEN Worker secret (.dev.vars locally), the break-glass admin that creates the first operators. Every change is audited under the operator's id and name.",
        },
      },
    },
  };
}
