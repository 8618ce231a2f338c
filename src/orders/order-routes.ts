import type { IRequest } from "itty-router";
import { authenticate, sha256Hex } from "../http/auth";
import { issuesOf, readJson } from "../http/body";
import { ApiError, fail, failure } from "../http/errors";
import { errorResponse, ok, okJson } from "../http/responses";
import type { RequestContext } from "../http/router";
import { checkWebhookUrl } from "../webhooks/url-policy";
import { orderContext } from "../catalogue/catalogue-cache";
import { checkProductList, limitsFromEnv, planOrder } from "./create-checks";
import { objectIdOf, orderObjectName } from "./order-id";
import type { Result } from "./order-object";
import { ConfirmOrderRequest, CreateOrderRequest, GetOrderQuery } from "./schemas";

// RPC results arrive typed as serialised copies; they are the same plain data the object returned.
async function answer<T>(result: Promise<unknown>, toResponse: (data: T) => Response): Promise<Response> {
  const settled = (await result) as Result<T>;
  return settled.ok ? toResponse(settled.data) : errorResponse(settled);
}

/** The request as the idempotency of `reference` compares it: parsed, with defaults, in a fixed order. */
function canonicalRequest(request: CreateOrderRequest): string {
  return JSON.stringify({
    productList: request.productList.map((line) => [line.sku, line.productType, line.quote, line.quantity]),
    wallet: request.wallet,
    reference: request.reference,
    webhookUrl: request.webhookUrl ?? null,
  });
}

export async function createOrder(request: IRequest, { env }: RequestContext): Promise<Response> {
  const client = await authenticate(request, env);
  const parsed = CreateOrderRequest.safeParse(await readJson(request, Number(env.MAX_BODY_BYTES)));
  if (!parsed.success) fail("invalid_request_body", issuesOf(parsed.error));
  const body = parsed.data;
  if (body.webhookUrl !== undefined) {
    const problem = checkWebhookUrl(body.webhookUrl, env.ALLOW_INSECURE_WEBHOOKS === "true");
    if (problem !== null) fail("invalid_webhook_url", { reason: problem }, `webhookUrl is not allowed: ${problem}`);
  }
  const listProblem = checkProductList(body, limitsFromEnv(env));
  if (listProblem !== null) return errorResponse(listProblem);
  const context = await orderContext(env, client.id, body.productList.map((line) => line.sku), body.wallet);
  // Priced here, at the edge; the order object checks the reference first, so a replay is answered with
  // its order even when this plan failed.
  const plan = planOrder(body, context);
  const stub = env.ORDERS.get(env.ORDERS.idFromName(orderObjectName(client.id, body.reference)));
  const requestHash = await sha256Hex(canonicalRequest(body));
  return answer<{ order: string; replayed: boolean }>(stub.create({ clientId: client.id, request: body, requestHash, planJson: JSON.stringify(plan) }), ({ order, replayed }) =>
    replayed
      ? okJson("Order already exists for this reference", order, { "idempotent-replayed": "true" })
      : okJson("Order created successfully", order),
  );
}

export async function confirmOrder(request: IRequest, { env }: RequestContext): Promise<Response> {
  const client = await authenticate(request, env);
  let body: unknown;
  try {
    body = await readJson(request, Number(env.MAX_BODY_BYTES));
  } catch (error) {
    // An empty or unreadable body has no valid orderId either: the spec's confirm message (a 413 stays).
    if (error instanceof ApiError && error.failure.code === "malformed_json") {
      return errorResponse(failure("invalid_order_id", error.failure.details));
    }
    throw error;
  }
  const parsed = ConfirmOrderRequest.safeParse(body);
  if (!parsed.success) return errorResponse(failure("invalid_order_id", issuesOf(parsed.error)));
  const id = objectIdOf(env.ORDERS, parsed.data.orderId);
  if (id === null) return errorResponse(failure("order_not_found"));
  return answer(env.ORDERS.get(id).confirm(client.id), (data) => ok("Order confirmed", data));
}

export async function getOrder(request: IRequest, { env }: RequestContext): Promise<Response> {
  const client = await authenticate(request, env);
  const parsed = GetOrderQuery.safeParse(request.query);
  if (!parsed.success) return errorResponse(failure("invalid_order_query", issuesOf(parsed.error)));
  const id = objectIdOf(env.ORDERS, parsed.data.orderId);
  if (id === null) return errorResponse(failure("order_not_found"));
  return answer<string>(env.ORDERS.get(id).get(client.id), (json) => okJson("Order retrieved", json));
}
