/** Path, query and body of a request, checked by a zod schema; anything else is a 400 that changes nothing. */
import type { IRequest } from "itty-router";
import * as z from "zod";
import { readJson } from "./body";
import { checked, pathParams } from "./inputs";

/** Path parameters (percent-decoded) checked by `schema`; anything else is 400 invalid_parameters. */
export function parseParams<T extends z.ZodType>(schema: T, request: IRequest): z.output<T> {
  return checked(schema, pathParams(request), "invalid_parameters");
}

/** Query parameters checked by `schema`; a repeated parameter arrives as an array and fails the check. */
export function parseQuery<T extends z.ZodType>(schema: T, request: IRequest): z.output<T> {
  return checked(schema, { ...request.query }, "invalid_parameters");
}

/** A JSON body of at most MAX_BODY_BYTES (or `maxBytes`) checked by `schema`; 400 invalid_request_body. */
export async function parseBody<T extends z.ZodType>(
  schema: T,
  request: IRequest,
  env: Env,
  maxBytes = Number(env.MAX_BODY_BYTES),
): Promise<z.output<T>> {
  return checked(schema, await readJson(request, maxBytes), "invalid_request_body");
}

/** The query of a paged list: `after` (the `next` of the previous page) and `limit`. */
export const PageQuery = z.object({
  after: z.string().min(1).max(128).optional().describe("Cursor: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});
