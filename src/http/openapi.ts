/**
 * The OpenAPI 3.1 document of GET /openapi.json, generated from the routes themselves. Each domain's
 * routes file describes its routes (src/http/route.ts: method, path, handler, schemas, errors, summary),
 * the composition root (src/app.ts) gathers them with the named schemas and the webhooks
 * (src/document-parts.ts), and the route GET /openapi.json (src/docs/docs-routes.ts) builds the document
 * here, on its first request (each route's operation: openapi-operation.ts; zod's schemas as JSON Schema
 * and the error bodies: openapi-schemas.ts; what no route describes: openapi-parts.ts); this module and
 * those know no domain. Error bodies get one schema per code
 * (src/kernel/failure-details.ts: typed details, an example, retry advice); examples of routes live in each
 * domain's *-examples.ts. The checked-in copy is schema/openapi.json (regenerate: `npx vitest run
 * --project service test/openapi -u`, then `npm run client:types`); `npm run lint:openapi` lints it with
 * Redocly.
 */
import * as z from "zod";
import {
  codeErrorSchema,
  ERROR_SCHEMA,
  errorName,
  envelope,
  namedSchemaOptions,
  pascal,
  strip,
} from "./openapi-schemas";
import type { JsonSchema } from "./openapi-schemas";
import { loadDoc, operationOf } from "./openapi-operation";
import { info, OPENAPI_VERSION, SERVERS, SHARED_COMPONENTS, tagGroups, webhookOperation } from "./openapi-parts";
import type { ErrorCode } from "./errors";
import type { Route } from "./route";

import type { TagDoc, WebhookDoc } from "./openapi-parts";

export { API_VERSION, OPENAPI_VERSION, SERVERS } from "./openapi-parts";
export type { TagDoc, WebhookDoc, WebhookHeader } from "./openapi-parts";

/** Response schemas that get a name under components.schemas wherever they appear, with that name. */
export type NamedSchemas = readonly (readonly [z.core.$ZodType, string])[];

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

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
  [key: string]: unknown;
}

type LoadedRoute = Awaited<ReturnType<typeof loadDoc>>;

/** Throws on a route whose description would make the document wrong: checked before anything is built. */
function checkRoutes(routes: readonly LoadedRoute[], tags: readonly TagDoc[], webhooks: readonly WebhookDoc[]): void {
  const seen = new Set<string>();
  for (const { method, path, ...doc } of routes) {
    if (!tags.some((tag) => tag.name === doc.tag))
      throw new Error(`${doc.operationId}: tag ${doc.tag} is not one of the document's tags`);
    if ((doc.auth === "admin") !== (doc.role !== undefined))
      throw new Error(`${doc.operationId}: an operator route, and only one, names the role it needs`);
    if (doc.file !== undefined && doc.data !== null && doc.file.json !== true)
      throw new Error(
        `${doc.operationId}: a route that answers a file has no envelope (data: null), unless asked for JSON`,
      );
    for (const key of [`${method} ${path}`, `operationId ${doc.operationId}`]) {
      if (seen.has(key)) throw new Error(`${key} is described twice`);
      seen.add(key);
    }
  }
  for (const hook of webhooks) {
    if (seen.has(`operationId ${hook.operationId}`))
      throw new Error(`operationId ${hook.operationId} is described twice`);
    seen.add(`operationId ${hook.operationId}`);
  }
}

const uri = (id: string) => `#/components/schemas/${id}`;

/**
 * components.schemas but the errors': the named schemas, each route's request (`<OperationId>Request`)
 * and success envelope (`<OperationId>Response`), and each webhook's body; with the name each webhook's
 * body got. Throws on a name used twice.
 */
function routeSchemas(routes: readonly LoadedRoute[], named: NamedSchemas, webhooks: readonly WebhookDoc[]) {
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  for (const [schema, id] of named) outputs.add(schema, { id });
  for (const doc of routes) {
    const name = pascal(doc.operationId);
    if (doc.body !== undefined) inputs.add(doc.body, { id: `${name}Request` });
    if (doc.data !== null) outputs.add(envelope(doc.data, doc.messages), { id: `${name}Response` });
  }
  const webhookBodies = new Map<WebhookDoc, string>();
  for (const hook of webhooks) {
    const id = outputs.get(hook.body)?.id ?? `${pascal(hook.operationId)}Body`;
    if (!outputs.has(hook.body)) outputs.add(hook.body, { id });
    webhookBodies.set(hook, id);
  }
  const options = namedSchemaOptions(uri);
  const inputSchemas = z.toJSONSchema(inputs, { ...options, io: "input" }).schemas as Record<string, JsonSchema>;
  const outputSchemas = z.toJSONSchema(outputs, { ...options, io: "output" }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, schema] of [...Object.entries(outputSchemas), ...Object.entries(inputSchemas)])
    addSchema(schemas, id, strip(schema));
  return { schemas, webhookBodies };
}

function addSchema(schemas: Record<string, JsonSchema>, id: string, schema: JsonSchema): void {
  if (schemas[id] !== undefined) throw new Error(`schema name ${id} is used twice`);
  schemas[id] = schema;
}

function sorted<T>(entries: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
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
  const docs = await Promise.all(routes.map(loadDoc));
  checkRoutes(docs, tags, webhooks);
  const { schemas, webhookBodies } = routeSchemas(docs, named, webhooks);
  const paths: Record<string, Record<string, unknown>> = {};
  const errorCodes = new Set<ErrorCode>();
  for (const { method, path: itty, ...doc } of docs) {
    const { operation, codes } = operationOf(doc, itty, doc.data !== null, uri);
    for (const code of codes) errorCodes.add(code);
    const path = itty.replace(/:(\w+)/g, "{$1}");
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }
  addSchema(schemas, "Error", ERROR_SCHEMA);
  for (const code of errorCodes) addSchema(schemas, errorName(code), codeErrorSchema(code));
  const usedTags = new Set<string>([...docs.map(({ tag }) => tag), ...(webhooks.length > 0 ? ["Webhooks"] : [])]);
  const shownTags = tags.filter((tag) => usedTags.has(tag.name));
  const hooks = webhooks.map((hook) => [
    hook.event,
    { post: webhookOperation(hook, { $ref: uri(webhookBodies.get(hook)!) }) },
  ]);
  return {
    openapi: OPENAPI_VERSION,
    info: info(description),
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: SERVERS,
    tags: shownTags.map(({ name, description }) => ({ name, description })),
    ...tagGroups(shownTags),
    paths: sorted(paths),
    ...(webhooks.length > 0 ? { webhooks: Object.fromEntries(hooks) } : {}),
    components: { schemas: sorted(schemas), ...SHARED_COMPONENTS },
  };
}
