import { HTTP_STATUS, type Failure } from "./errors";

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function ok(message: string, data: unknown, headers: Record<string, string> = {}): Response {
  return jsonResponse({ message, data }, 200, headers);
}

/** A success body around data that is JSON already (an order object's view), without parsing it again. */
export function okJson(message: string, dataJson: string, headers: Record<string, string> = {}): Response {
  return new Response(`{"message":${JSON.stringify(message)},"data":${dataJson}}`, {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function errorResponse(failure: Failure, headers: Record<string, string> = {}): Response {
  const body: Record<string, unknown> = { message: failure.message, code: failure.code };
  if (failure.details !== undefined) body.details = failure.details;
  return jsonResponse(body, HTTP_STATUS[failure.code], headers);
}
