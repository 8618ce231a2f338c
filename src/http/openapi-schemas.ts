/**
 * The JSON Schemas of GET /openapi.json (src/http/openapi.ts): zod's schemas as JSON Schema draft 2020-12,
 * tidied for a reader, the success envelope around a route's answer, and the body of each error code.
 */
import * as z from "zod";
import { ERROR_DETAILS, RETRY } from "../kernel/failure-details";
import { ERRORS, type ErrorCode } from "./errors";

export type JsonSchema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** Drops zod's ±MAX_SAFE_INTEGER bounds of plain integers: true, and noise in a reader's eyes. */
export function tidy({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.maximum === SAFE) delete jsonSchema.maximum;
  if (jsonSchema.minimum === -SAFE) delete jsonSchema.minimum;
}

export function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

export function inline(schema: z.core.$ZodType, io: "input" | "output"): JsonSchema {
  return strip(
    z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "throw", override: tidy }) as JsonSchema,
  );
}

export function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

export function envelope(data: z.core.$ZodType, messages: readonly string[] | undefined): z.ZodType {
  const message =
    messages !== undefined && messages.length > 0
      ? z.enum(messages as readonly string[] as [string, ...string[]])
      : z.string();
  return z.object({ message, data });
}

export function errorName(code: ErrorCode): string {
  return `${code
    .split("_")
    .map((word) => pascal(word))
    .join("")}Error`;
}

/** The shape every error body has: what a client that knows no code can rely on. */
export const ERROR_SCHEMA: JsonSchema = {
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
export function codeErrorSchema(code: ErrorCode): JsonSchema {
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

/** How zod writes the document's named schemas: references to them by `uri`. */
export function namedSchemaOptions(uri: (id: string) => string) {
  return { target: "draft-2020-12" as const, unrepresentable: "throw" as const, override: tidy, uri };
}
