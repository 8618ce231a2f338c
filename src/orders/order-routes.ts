import type { IRequest } from "itty-router";
import { sha256Hex } from "../kernel/crypto";
import { once } from "../kernel/once";
import { issuesOf, readJson } from "../http/body";
import { Refusal, fail, failure } from "../kernel/failures";
import { errorResponse, ok, okJson } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { checkWebhookUrl } from "../webhooks/url-policy";
import { catalogueSnapshot } from "../catalogue/catalogue-cache";
import {
  checkProductList,
  checkSandboxOutcome,
  limitsFromEnv,
  planOrder,
  readSandboxOutcome,
  scriptLines,
  type SandboxOutcome,
} from "./order-plan";
import { serviceMode, supplierRefusal } from "../kernel/service-mode";
import { objectIdOf, orderObjectName } from "./order-id";
import type { Result } from "./order-object";
import {
  canonicalCreateRequest,
  readCreateOrder,
  readOrderId,
  readReference,
  type CreateOrderRequest,
} from "./requests";

// Only GET /openapi.json reads the answers' schemas and the examples: they load with the document. The
// requests' schemas load with the first request the readers of requests.ts leave to them, or the document.
const views = () => import("./order-view-schemas");
const examples = async () => (await import("./order-examples")).orderExamples;
const schemas = once(() => import("./order-schemas"));

// RPC results arrive typed as serialised copies; they are the same plain data the object returned.
async function answer<T>(result: Promise<unknown>, toResponse: (data: T) => Response): Promise<Response> {
  const settled = (await result) as Result<T>;
  return settled.ok ? toResponse(settled.data) : errorResponse(settled);
}

/** The create's Sandbox-Outcome header: null when absent; 400 in live, or for a value it does not know. */
function sandboxOutcomeOf(request: IRequest, env: Env): SandboxOutcome | null {
  const value = request.headers.get("sandbox-outcome");
  if (value === null) return null;
  if (serviceMode(env) !== "sandbox") fail("sandbox_outcome_in_live");
  const outcome = readSandboxOutcome(value);
  if (typeof outcome !== "string") throw new Refusal(outcome);
  return outcome;
}

/** The create body as its schema parses it: read without zod when it is plainly valid, else 400 with the schema's issues. */
async function createRequestOf(body: unknown): Promise<CreateOrderRequest> {
  const read = readCreateOrder(body);
  if (read !== null) return read;
  const parsed = (await schemas()).CreateOrderRequest.safeParse(body);
  if (!parsed.success) fail("invalid_request_body", issuesOf(parsed.error));
  return parsed.data;
}

/** The orderId of a confirm body or a retrieve query, read without zod when it is plainly valid; else what its schema says. */
async function requestedOrderId(
  input: unknown,
  schema: "ConfirmOrderRequest" | "GetOrderQuery",
): Promise<{ orderId: string } | { issues: ReturnType<typeof issuesOf> }> {
  const read = readOrderId(input);
  if (read !== null) return { orderId: read };
  const parsed = (await schemas())[schema].safeParse(input);
  return parsed.success ? { orderId: parsed.data.orderId } : { issues: issuesOf(parsed.error) };
}

export async function createOrder(request: IRequest, { env, authenticate }: RequestContext): Promise<Response> {
  const client = await authenticate();
  const outcome = sandboxOutcomeOf(request, env);
  const body = await createRequestOf(await readJson(request, Number(env.MAX_BODY_BYTES)));
  if (body.webhookUrl !== undefined) {
    const problem = checkWebhookUrl(body.webhookUrl, env.ALLOW_INSECURE_WEBHOOKS === "true");
    if (problem !== null) fail("invalid_webhook_url", { reason: problem }, `webhookUrl is not allowed: ${problem}`);
  }
  const listProblem =
    checkProductList(body, limitsFromEnv(env)) ?? (outcome !== null ? checkSandboxOutcome(body, outcome) : null);
  if (listProblem !== null) return errorResponse(listProblem);
  const snapshot = await catalogueSnapshot(
    env,
    client.id,
    body.productList.map((line) => line.sku),
    body.wallet,
  );
  // Priced here, at the edge; the order object checks the reference first, so a replay is answered with
  // its order even when this plan failed.
  const planned = planOrder(body, snapshot, (supplier) => supplierRefusal(supplier, env) === null);
  const plan = outcome !== null && planned.ok ? { ...planned, lines: scriptLines(planned.lines, outcome) } : planned;
  const stub = env.ORDERS.get(env.ORDERS.idFromName(orderObjectName(client.id, body.reference)));
  const requestHash = await sha256Hex(canonicalCreateRequest(body, outcome));
  const created = stub.create({
    clientId: client.id,
    request: body,
    requestHash,
    plan,
    maxHeldCodes: Number(env.MAX_HELD_CODES),
    open: { maxOpen: Number(env.MAX_OPEN_ORDERS), backoffStep: Number(env.EXPIRED_ORDERS_BACKOFF_STEP) },
  });
  return answer<{ order: string; replayed: boolean }>(created, ({ order, replayed }) =>
    replayed
      ? okJson("Order already exists for this reference", order, { "idempotent-replayed": "true" })
      : okJson("Order created successfully", order),
  );
}

export async function confirmOrder(request: IRequest, { env, authenticate }: RequestContext): Promise<Response> {
  const client = await authenticate();
  let body: unknown;
  try {
    body = await readJson(request, Number(env.MAX_BODY_BYTES));
  } catch (error) {
    // An empty or unreadable body has no valid orderId either: confirm's own message (a 413 stays).
    if (error instanceof Refusal && error.failure.code === "malformed_json") {
      return errorResponse(failure("invalid_order_id", error.failure.details));
    }
    throw error;
  }
  const parsed = await requestedOrderId(body, "ConfirmOrderRequest");
  if ("issues" in parsed) return errorResponse(failure("invalid_order_id", parsed.issues));
  const id = objectIdOf(env.ORDERS, parsed.orderId);
  if (id === null) return errorResponse(failure("order_not_found"));
  return answer(env.ORDERS.get(id).confirm(client.id), (data) => ok("Order confirmed", data));
}

/**
 * GET /order/get?reference=: the order the client created with that reference. The order object is named
 * by client and reference, so this reads the order itself, as `orderId` does; another client's reference
 * names another object, which holds no order of the caller's.
 */
async function getOrderByReference(query: unknown, env: Env, clientId: string): Promise<Response> {
  let reference = readReference(query);
  if (reference === null) {
    const parsed = (await schemas()).GetOrderByReferenceQuery.safeParse(query);
    if (!parsed.success) return errorResponse(failure("invalid_order_query", issuesOf(parsed.error)));
    reference = parsed.data.reference;
  }
  const stub = env.ORDERS.get(env.ORDERS.idFromName(orderObjectName(clientId, reference)));
  return answer<string>(stub.get(clientId), (json) => okJson("Order retrieved", json));
}

export async function getOrder(request: IRequest, { env, authenticate }: RequestContext): Promise<Response> {
  const client = await authenticate();
  // Without an orderId, a reference names the order; with neither, the orderId's 400 as always.
  if (request.query.orderId === undefined && request.query.reference !== undefined)
    return getOrderByReference(request.query, env, client.id);
  const parsed = await requestedOrderId(request.query, "GetOrderQuery");
  if ("issues" in parsed) return errorResponse(failure("invalid_order_query", parsed.issues));
  const id = objectIdOf(env.ORDERS, parsed.orderId);
  if (id === null) return errorResponse(failure("order_not_found"));
  return answer<string>(env.ORDERS.get(id).get(client.id), (json) => okJson("Order retrieved", json));
}

/** This file's routes, each with its description in GET /openapi.json. */
export const orderRoutes: Route[] = [
  {
    method: "POST",
    path: "/order/create",
    handler: createOrder,
    operationId: "createOrder",
    example: async () => (await examples()).createOrder,
    tag: "Orders",
    summary: "Create an order",
    description:
      "Prices the order in the wallet's currency and reserves its codes; nothing is charged until " +
      "PUT /order/confirm, and an order not confirmed before `expiresAt` is rejected.\n\n" +
      "A create that repeats the `reference` of an existing order of the same client with the same body returns that " +
      "order (header `Idempotent-Replayed: true`), so a create is safe to retry.",
    auth: "apiKey",
    scope: "orders:write",
    body: async () => (await schemas()).CreateOrderRequest,
    data: async () => (await views()).CreateOrderData,
    messages: ["Order created successfully", "Order already exists for this reference"],
    errors: [
      "product_list_malformed",
      "product_list_too_big",
      "quote_mismatch",
      "quote_out_of_range",
      "wallet_not_found",
      "insufficient_funds",
      "balance_held",
      "held_codes_limit",
      "open_orders_limit",
      "invalid_webhook_url",
      "product_not_found",
      "reference_already_used",
      "exchange_not_supported",
      "out_of_stock",
      "invalid_sandbox_outcome",
      "sandbox_outcome_in_live",
    ],
    checks: [
      {
        when: "The Sandbox-Outcome header, when sent: sent in live, or a value it does not know",
        codes: ["sandbox_outcome_in_live", "invalid_sandbox_outcome"],
      },
      { when: "The body's shape", codes: ["malformed_json", "invalid_request_body"] },
      { when: "`webhookUrl`, when sent", codes: ["invalid_webhook_url"] },
      {
        when: "The list: empty, a SKU twice, over a limit; with Sandbox-Outcome `partial`, fewer than two lines",
        codes: ["product_list_malformed", "product_list_too_big", "invalid_sandbox_outcome"],
      },
      {
        when: "The reference: an order of the client has it, created with another body",
        codes: ["reference_already_used"],
      },
      {
        when: "Each line in list order: its SKU, then its productType and quote",
        codes: ["product_not_found", "quote_mismatch", "quote_out_of_range"],
      },
      { when: "The wallet: the client has none in that currency", codes: ["wallet_not_found"] },
      { when: "An exchange rate from the wallet's currency to each line's", codes: ["exchange_not_supported"] },
      { when: "Stock, for lines whose codes come from inventory", codes: ["out_of_stock"] },
      {
        when: "The balance; for an order that reserves codes, also net of what the client's other open orders hold, and their codes against MAX_HELD_CODES",
        codes: ["insufficient_funds", "balance_held", "held_codes_limit"],
      },
      {
        when: "The client's open orders in the wallet, inventory or not, against MAX_OPEN_ORDERS (halved while its orders keep expiring unconfirmed)",
        codes: ["open_orders_limit"],
      },
    ],
    requestHeaders: {
      "Sandbox-Outcome": {
        description:
          "Sandbox only (400 sandbox_outcome_in_live in live): how processing of this order ends, whatever its SKUs' suppliers. `successful`: every line is issued (an inventory SKU's line sells the codes it reserved, as in live; any other line gets sandbox codes); `failed`: every line fails and is refunded; `partial`: the last line fails and is refunded, the others are issued (needs two lines or more); `slow`: the order stays `processing` for about 3 seconds (two supplier retries), then succeeds. Stock is still reserved and checked at create; a failed line's reserved codes go back on sale. Part of the request a replay of `reference` compares.",
        schema: { type: "string", enum: ["successful", "partial", "failed", "slow"] },
      },
    },
    headers: {
      "Idempotent-Replayed": {
        description: "`true` when the answer is an existing order of this reference.",
        schema: { type: "string", const: "true" },
      },
    },
  },
  {
    method: "PUT",
    path: "/order/confirm",
    handler: confirmOrder,
    operationId: "confirmOrder",
    example: async () => (await examples()).confirmOrder,
    tag: "Orders",
    summary: "Confirm an order and charge its wallet",
    description:
      "Charges the order's total to its wallet and starts fulfilment; the order then moves to `processing` and " +
      "an end state (`successful`, `partial` or `failed`; lines that cannot be fulfilled are refunded). Read it " +
      "with GET /order/get or wait for its webhooks.\n\n" +
      "Exactly one of any number of concurrent confirms of an order succeeds.",
    auth: "apiKey",
    scope: "orders:write",
    body: async () => (await schemas()).ConfirmOrderRequest,
    ownBodyErrors: true,
    data: async () => (await views()).ConfirmOrderData,
    messages: ["Order confirmed"],
    errors: ["invalid_order_id", "insufficient_funds", "order_not_found", "order_already_confirmed", "order_expired"],
    checks: [
      { when: "The body has a valid `orderId` (an empty or unreadable body has none)", codes: ["invalid_order_id"] },
      { when: "An order of the calling client has that id", codes: ["order_not_found"] },
      {
        when: "The order: expired (past `expiresAt`, or rejected), or confirmed already",
        codes: ["order_expired", "order_already_confirmed"],
      },
      { when: "The wallet's balance covers the order's total", codes: ["insufficient_funds"] },
    ],
  },
  {
    method: "GET",
    path: "/order/get",
    handler: getOrder,
    operationId: "getOrder",
    example: async () => (await examples()).getOrder,
    tag: "Orders",
    summary: "Retrieve an order",
    description:
      "The order in any state, with its redeem codes once it is `successful` or `partial`. Poll until an end state " +
      "(`successful`, `partial`, `failed`, `rejected`) or wait for a webhook.\n\n" +
      "Name the order by `orderId`, or by the `reference` you gave it at create (without `orderId`): both read the " +
      "order itself, so the answer is always current.",
    auth: "apiKey",
    scope: "orders:read",
    query: async () => (await schemas()).RetrieveOrderQuery,
    data: async () => (await views()).OrderView,
    messages: ["Order retrieved"],
    errors: ["invalid_order_query", "order_not_found"],
    checks: [
      {
        when: "The query has a valid `orderId`, or, without one, a valid `reference`",
        codes: ["invalid_order_query"],
      },
      {
        when: "An order of the calling client has that id or reference (another client's order is answered as an unknown one)",
        codes: ["order_not_found"],
      },
    ],
  },
];
