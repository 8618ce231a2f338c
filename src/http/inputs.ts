/**
 * The parts of a request a declared route reads (src/http/route.ts), read by the router before the route's
 * handler runs: path parameters, query and body, each checked by its schema (or read without zod where
 * the route gives a reader). A part its schema refuses is a 400 that changes nothing, with the schema's
 * issues as details; the handler is given only what was read and found valid. Nothing here imports zod:
 * a schema is asked through its Standard Schema `validate`, so a client's route loads zod only when a
 * request needs it.
 */
import type { IRequest } from "itty-router";
import { Refusal, fail } from "../kernel/failures";
import { issuesOf, readJson } from "./body";
import { jsonResponse, ok, okJson } from "./responses";
import type { ErrorCode } from "./errors";
import type * as z from "zod/v4/core";
import type { DeclaredRoute, Part, PartOptions, RequestContext, Schema } from "./route";

function optionsOf(part: Part): PartOptions {
  if (typeof part === "function") return { schema: part };
  return "_zod" in part ? { schema: part } : part;
}

/** The schema of a part, loaded if it is given as a loader. */
export async function schemaOf(part: Part): Promise<Schema> {
  const { schema } = optionsOf(part);
  return typeof schema === "function" ? schema() : schema;
}

/** `raw` as `schema` parses it, or 400 `refusal` with its issues. Our schemas are synchronous. */
function checked<S extends Schema>(schema: S, raw: unknown, refusal: ErrorCode): z.output<S> {
  const result = schema["~standard"].validate(raw);
  if (result instanceof Promise) throw new Error("a request's schema must not be asynchronous");
  if (result.issues !== undefined) fail(refusal, issuesOf(result));
  return result.value as z.output<S>;
}

/**
 * `raw` as the part reads it: its reader's value, else its parser's or its schema's, else 400 `refusal` with
 * the issues; then its own check.
 */
async function readPart(part: Part, raw: unknown, refusal: ErrorCode): Promise<unknown> {
  const options = optionsOf(part);
  const value =
    options.read?.(raw) ??
    (options.parse !== undefined
      ? await options.parse(raw)
      : checked(await schemaOf(part), raw, options.refusal ?? refusal));
  options.check?.(value);
  return value;
}

/** The path parameters, percent-decoded; 400 `refusal` for a path that is not valid percent-encoding. */
function pathParams(request: IRequest, refusal: ErrorCode = "invalid_parameters"): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    for (const [name, value] of Object.entries(request.params ?? {})) out[name] = decodeURIComponent(value);
  } catch {
    fail(refusal, { reason: "path is not valid percent-encoding" });
  }
  return out;
}

/** What a body's schema is given: its own reading, or JSON of at most MAX_BODY_BYTES. */
async function rawBody(part: Part, request: Request, env: Env): Promise<unknown> {
  const { from, refusal } = optionsOf(part);
  try {
    return from !== undefined ? await from(request, env) : await readJson(request, Number(env.MAX_BODY_BYTES));
  } catch (error) {
    // A body of its own refusal has none to read when it is not JSON either (a 413 stays).
    if (refusal !== undefined && error instanceof Refusal && error.failure.code === "malformed_json")
      fail(refusal, error.failure.details);
    throw error;
  }
}

/**
 * Answers a declared route: its caller (the client behind the API key, or the operator the router
 * checked), then its parts in the order path, query, body (the first that fails answers), then its handler
 * with them.
 */
export async function serveDeclared(route: DeclaredRoute, request: IRequest, context: RequestContext) {
  const { env, exec, requestId } = context;
  // A route that creates something with an id of its own answers its envelope with its declared status.
  const created = (message: string, data: unknown, headers?: Record<string, string>) =>
    jsonResponse({ message, data }, 201, headers);
  const respond = route.status === 201 ? created : ok;
  const input: Record<string, unknown> = { env, exec, requestId, headers: request.headers, ok: respond, okJson };
  if (route.auth === "apiKey") input.client = await context.authenticate();
  if (route.auth === "admin") input.caller = context.admin;
  if (route.params !== undefined)
    input.params = await readPart(
      route.params,
      pathParams(request, optionsOf(route.params).refusal),
      "invalid_parameters",
    );
  if (route.query !== undefined) input.query = await readPart(route.query, { ...request.query }, "invalid_parameters");
  if (route.body !== undefined)
    input.body = await readPart(route.body, await rawBody(route.body, request, env), "invalid_request_body");
  return route.serve(input as never);
}

/** The 400 codes a route's declared parts answer with: the document lists them beside its own. */
export function partErrors(doc: { params?: Part; query?: Part; body?: Part }): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (doc.body !== undefined) {
    const { refusal } = optionsOf(doc.body);
    codes.push("payload_too_large");
    if (refusal !== undefined) codes.push(refusal);
    else codes.push("malformed_json", "invalid_request_body");
  }
  for (const part of [doc.params, doc.query])
    if (part !== undefined) codes.push(optionsOf(part).refusal ?? "invalid_parameters");
  return codes;
}
