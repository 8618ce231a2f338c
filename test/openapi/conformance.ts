/**
 * Checks real responses against the served OpenAPI document with Ajv (JSON Schema 2020-12), the validator
 * that @seriousme/openapi-schema-validator is built on. The response schema is looked up by the route's
 * method, path template and status, so a response that the document does not describe fails too.
 */
import Ajv2020 from "ajv/dist/2020.js";
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import type { ApiCall } from "../helpers";

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

let loaded: { doc: Doc; ajv: Ajv2020 } | null = null;

export async function servedDocument(): Promise<Doc> {
  if (loaded === null) {
    const response = await exports.default.fetch(new Request("http://orders.test/openapi.json"));
    const doc = (await response.json()) as Doc;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(
      { ...doc, $id: "https://order-service.test/openapi.json" } as object,
      "https://order-service.test/openapi.json",
      undefined,
      false,
    );
    loaded = { doc, ajv };
  }
  return loaded.doc;
}

const escape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

/** Fails unless the document describes `status` for the route and `call.body` matches its schema. */
export async function expectConforms(method: string, template: string, call: ApiCall): Promise<void> {
  const doc = await servedDocument();
  const operation = doc.paths[template]?.[method.toLowerCase()];
  expect(operation, `${method} ${template} is not in the document`).toBeDefined();
  const status = String(call.status);
  expect(
    Object.keys(operation!.responses),
    `${method} ${template} does not document ${status}: ${JSON.stringify(call.body)}`,
  ).toContain(status);
  const pointer = `https://order-service.test/openapi.json#/paths/${escape(template)}/${method.toLowerCase()}/responses/${status}/content/${escape("application/json")}/schema`;
  const validate = loaded!.ajv.getSchema(pointer);
  expect(validate, pointer).toBeDefined();
  const valid = validate!(call.body);
  expect(
    valid,
    `${method} ${template} ${status}: ${JSON.stringify(validate!.errors)}\n${JSON.stringify(call.body).slice(0, 2000)}`,
  ).toBe(true);
  expect(call.headers.get("x-request-id")).toBeTruthy();
}
