/**
 * One operation of GET /openapi.json (src/http/openapi.ts), from one route's description: its parameters,
 * request body, success answer and one response per error status, with the route's checks listed under its
 * description.
 */
import * as z from "zod";
import { RETRY, errorExample } from "../kernel/failure-details";
import { ERRORS, type ErrorCode } from "./errors";
import { partErrors, schemaOf } from "./inputs";
import { errorName, inline, pascal, type JsonSchema } from "./openapi-schemas";
import type { Loadable, ObjectSchema, Route, RouteDoc, RouteExample } from "./route";

/** A route's description with what it hands over as loaders (its answer's schema, its example) loaded. */
export type LoadedDoc = Omit<RouteDoc, "data" | "example" | "body" | "query" | "params"> & {
  data: z.core.$ZodType | null;
  params?: ObjectSchema;
  example?: RouteExample;
  body?: z.core.$ZodType;
  query?: ObjectSchema;
  /** Its parts as declared, for the errors of reading them. */
  parts: Pick<RouteDoc, "params" | "query" | "body">;
};

async function loaded<T>(part: Loadable<T>): Promise<T> {
  return typeof part === "function" ? (part as () => Promise<T>)() : part;
}

/** A route's description with its loaders loaded and its parts' schemas at hand. */
export async function loadDoc({ data, example, body, query, params, serve: _serve, ...route }: Route) {
  return {
    ...route,
    ...(params !== undefined ? { params: (await schemaOf(params)) as ObjectSchema } : {}),
    data: data === null ? null : await loaded(data),
    ...(example !== undefined ? { example: await loaded(example) } : {}),
    ...(body !== undefined ? { body: await schemaOf(body) } : {}),
    ...(query !== undefined ? { query: (await schemaOf(query)) as ObjectSchema } : {}),
    parts: { params, query, body },
  };
}

/**
 * Errors every route of its kind can answer, besides its own: those of its auth and of its declared parts.
 */
function implicitErrors(doc: LoadedDoc): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (doc.auth === "apiKey") codes.push("unauthenticated", "wrong_environment", "ip_not_allowed", "rate_limited");
  if (doc.auth === "apiKey" && doc.scope !== null && doc.scope !== undefined) codes.push("insufficient_scope");
  if (doc.auth === "admin") codes.push("unauthenticated", "rate_limited");
  if (doc.auth === "admin" && doc.role !== "viewer") codes.push("forbidden");
  codes.push(...partErrors(doc.parts));
  codes.push("server_error");
  return codes;
}

/**
 * The errors a route answers itself: those it lists, or those its checks name, in the order they run. The
 * errors of reading its body, which a check may name too, take their place among those of its kind.
 */
function ownErrors(doc: LoadedDoc): readonly ErrorCode[] {
  if (doc.errors !== undefined) return doc.errors;
  const ofBody = partErrors({ body: doc.parts.body });
  const named = (doc.checks ?? []).flatMap((check) => check.codes);
  return [...new Set(named.filter((code) => !ofBody.includes(code)))];
}

/** What a client route's description says of the scope its key needs (docs/api.md, Keys and scopes). */
function scopeSentence(doc: Pick<RouteDoc, "auth" | "scope">): string | undefined {
  if (doc.auth !== "apiKey" || doc.scope === undefined) return undefined;
  if (doc.scope === null) return "**Scope:** none: any key of the client may call it.";
  return `**Scope:** \`${doc.scope}\`. A key without it is 403 \`insufficient_scope\`.`;
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

/** One response per error status of the route's codes, each code's body by reference (`uri`) with its example. */
function errorResponses(codes: ErrorCode[], uri: (id: string) => string): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Record<string, unknown> = { ...REQUEST_ID };
    if (status === 429) headers["Retry-After"] = { description: "Seconds to wait.", schema: { type: "string" } };
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
  return responses;
}

/** The request body of a route that has one: JSON by reference to its schema (`ref`), and CSV where it takes it. */
function requestBody(doc: LoadedDoc, ref: JsonSchema): JsonSchema {
  const request = doc.example?.request;
  const content: Record<string, unknown> = {
    "application/json": {
      schema: ref,
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
  return { required: true, content };
}

const REQUEST_ID = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

/**
 * The operation of a route at `itty` (its path in itty-router's syntax), and the error codes it answers.
 * Its request and success schemas are named `<OperationId>Request` and `<OperationId>Response` (by `uri`);
 * `enveloped` says whether it answers an envelope.
 */
export function operationOf(
  doc: LoadedDoc,
  itty: string,
  enveloped: boolean,
  uri: (id: string) => string,
): { operation: Record<string, unknown>; codes: ErrorCode[] } {
  const name = pascal(doc.operationId);
  const codes = [...new Set([...ownErrors(doc), ...implicitErrors(doc)])];
  const success = {
    description: doc.messages?.join(" | ") ?? doc.summary,
    headers: { ...REQUEST_ID, ...(doc.headers ?? {}) },
    content: successContent(doc, enveloped ? { $ref: uri(`${name}Response`) } : null),
  };
  const lead = [doc.description, roleSentence(doc.role), scopeSentence(doc)].filter(Boolean).join("\n\n");
  const description = describeRoute({ ...doc, description: lead === "" ? undefined : lead }, codes);
  const params = parameters(doc, itty);
  const operation: Record<string, unknown> = {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(description !== undefined ? { description } : {}),
    tags: [doc.tag],
    security:
      doc.auth === "none"
        ? []
        : [{ [doc.auth === "admin" ? "adminToken" : "apiKey"]: doc.scope != null ? [doc.scope] : [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(doc.body !== undefined ? { requestBody: requestBody(doc, { $ref: uri(`${name}Request`) }) } : {}),
    responses: { [String(doc.status ?? 200)]: success, ...errorResponses(codes, uri) },
  };
  return { operation, codes };
}
