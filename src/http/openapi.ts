/**
 * GET /openapi.json: an OpenAPI 3.1 document generated from the routes themselves. Each domain's routes
 * file describes its routes (src/http/route.ts: method, path, handler, schemas, errors, summary) and the
 * composition root (src/app.ts) hands them all here; this module knows no domain. The checked-in copy is
 * schema/openapi.json (regenerate: `npx vitest run test/openapi -u`).
 */
import { z } from "zod";
import { ERRORS, type ErrorCode } from "./errors";
import type { Route, RouteDoc } from "./route";

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.0.0";

/** Response schemas that get a name under components.schemas wherever they appear, with that name. */
export type NamedSchemas = readonly (readonly [z.ZodType, string])[];

/** What the composition root tells the builder besides the routes: named schemas, and the tags in order. */
export interface DocumentParts {
  named: NamedSchemas;
  /** Every tag a route may carry, in the order the document lists them. */
  tags: readonly string[];
  /** The document's info.description (Markdown). */
  description: string;
}

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

function inline(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return strip(z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "throw", override: tidy }) as JsonSchema);
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

function envelope(data: z.ZodType, messages: string[] | undefined): z.ZodType {
  const message = messages !== undefined && messages.length > 0 ? z.enum(messages as [string, ...string[]]) : z.string();
  return z.object({ message, data });
}

function errorBody(codes: ErrorCode[]): z.ZodType {
  return z.object({
    message: z.string().describe("Human-readable; the spec's message where the spec has one."),
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).describe("Stable machine-readable name: branch on this."),
    details: z.record(z.string(), z.unknown()).optional().describe("What went wrong, e.g. zod's issues as {issues: [{path, message}]}."),
  });
}

/** Errors every route of its kind can answer, besides its own. */
function implicitErrors(doc: RouteDoc): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (doc.auth === "apiKey") codes.push("unauthenticated", "rate_limited");
  if (doc.auth === "admin") codes.push("unauthenticated");
  if (doc.body !== undefined) codes.push("payload_too_large");
  if (doc.body !== undefined && doc.ownBodyErrors !== true) codes.push("malformed_json", "invalid_request_body");
  if ((doc.params !== undefined || doc.query !== undefined) && doc.auth === "admin") codes.push("invalid_parameters");
  codes.push("server_error");
  return codes;
}

function describeCodes(codes: ErrorCode[]): string {
  return codes.map((code) => `\`${code}\`: ${ERRORS[code].message}`).join("; ");
}

function parameters(doc: RouteDoc, itty: string): JsonSchema[] {
  const names = [...itty.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const declared = Object.keys(doc.params?.shape ?? {});
  if (names.join() !== declared.join()) {
    throw new Error(`${doc.operationId}: path parameters ${names.join(",")} but the schema declares ${declared.join(",")}`);
  }
  const out: JsonSchema[] = [];
  for (const [location, shape] of [
    ["path", doc.params?.shape ?? {}],
    ["query", doc.query?.shape ?? {}],
  ] as const) {
    for (const [name, field] of Object.entries(shape as Record<string, z.ZodType>)) {
      const schema = inline(field, "input");
      const { description, ...rest } = schema;
      out.push({
        name,
        in: location,
        required: location === "path" || !field.safeParse(undefined).success,
        ...(typeof description === "string" ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
  [key: string]: unknown;
}


/**
 * The document of the given routes and named response schemas. Throws on what would make it wrong: a
 * method and path routed twice, an operationId used twice, path parameters that differ from the route's
 * params schema, a schema name used twice.
 */
export function buildOpenApi(routes: readonly Route[], { named, tags, description }: DocumentParts): OpenApiDocument {
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  for (const [schema, id] of named) outputs.add(schema, { id });
  const paths: Record<string, Record<string, unknown>> = {};
  const operations: { method: string; path: string; doc: RouteDoc; okSchema: z.ZodType | null }[] = [];
  const seen = new Set<string>();
  for (const route of routes) {
    const { method, path: itty, handler: _handler, ...doc } = route;
    if (!tags.includes(doc.tag)) throw new Error(`${doc.operationId}: tag ${doc.tag} is not one of the document's tags`);
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
  const uri = (id: string) => `#/components/schemas/${id}`;
  const options = { target: "draft-2020-12" as const, unrepresentable: "throw" as const, override: tidy, uri };
  const inputSchemas = z.toJSONSchema(inputs, { ...options, io: "input" }).schemas as Record<string, JsonSchema>;
  const outputSchemas = z.toJSONSchema(outputs, { ...options, io: "output" }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, schema] of [...Object.entries(outputSchemas), ...Object.entries(inputSchemas)].sort(([a], [b]) => a.localeCompare(b))) {
    if (schemas[id] !== undefined) throw new Error(`schema name ${id} is used twice`);
    schemas[id] = strip(schema);
  }

  for (const { method, path: itty, doc, okSchema } of operations) {
    const name = pascal(doc.operationId);
    const path = itty.replace(/:(\w+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };
    responses["200"] = {
      description: doc.messages?.join(" | ") ?? doc.summary,
      headers: { ...requestId, ...(doc.headers ?? {}) },
      content: { "application/json": { schema: okSchema === null ? { type: "object", description: "An OpenAPI 3.1 document." } : { $ref: uri(`${name}Response`) } } },
    };
    const codes = [...new Set([...doc.errors, ...implicitErrors(doc)])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
    for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
      const headers: Record<string, unknown> = { ...requestId };
      if (status === 429) headers["Retry-After"] = { description: "Seconds to wait.", schema: { type: "string" } };
      responses[String(status)] = {
        description: describeCodes(statusCodes),
        headers,
        content: { "application/json": { schema: inline(errorBody(statusCodes), "output") } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: doc.operationId,
      summary: doc.summary,
      ...(doc.description !== undefined ? { description: doc.description } : {}),
      tags: [doc.tag],
      security: doc.auth === "none" ? [] : [{ [doc.auth === "admin" ? "adminToken" : "apiKey"]: [] }],
    };
    const params = parameters(doc, itty);
    if (params.length > 0) operation.parameters = params;
    if (doc.body !== undefined) {
      const content: Record<string, unknown> = { "application/json": { schema: { $ref: uri(`${name}Request`) } } };
      if (doc.csv === true) {
        content["text/csv"] = { schema: { type: "string", description: "A header row naming value, pin and link, then one code per row." } };
      }
      operation.requestBody = { required: true, content };
    }
    operation.responses = responses;
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }

  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: OPENAPI_VERSION,
    info: { title: "Order service", version: API_VERSION, description },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    tags: tags.filter((tag) => operations.some(({ doc }) => doc.tag === tag)).map((name) => ({ name })),
    paths: sortedPaths,
    components: {
      schemas,
      headers: { RequestId: { description: "The request's id: the one sent, if well-formed, or a generated one.", schema: { type: "string" } } },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "A client API key (sk_live_... or, locally, sk_test_demo)." },
        adminToken: { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN Worker secret (.dev.vars locally)." },
      },
    },
  };
}

/**
 * The routes with GET /openapi.json added: public, no auth, the document of all of them (itself included),
 * built once per isolate on first request.
 */
export function withOpenApi(routes: readonly Route[], parts: DocumentParts): Route[] {
  let json: string | null = null;
  const all: Route[] = [
    ...routes,
    {
      method: "GET",
      path: "/openapi.json",
      handler: async () => {
        json ??= JSON.stringify(buildOpenApi(all, parts));
        return new Response(json, {
          headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
        });
      },
      operationId: "getOpenApi",
      tag: "Meta",
      summary: "This document",
      auth: "none",
      data: null,
      errors: [],
    },
  ];
  return all;
}
