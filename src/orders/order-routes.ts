import { sha256Hex } from "../kernel/crypto";
import { once } from "../kernel/once";
import { issuesOf, readJson } from "../http/body";
import { Refusal, fail } from "../kernel/failures";
import type { Client } from "../http/auth";
import { route, type Route } from "../http/route";
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
async function answer<T>(result: Promise<unknown>): Promise<T> {
  const settled = (await result) as Result<T>;
  if (!settled.ok) throw new Refusal(settled);
  return settled.data;
}

/** The create's Sandbox-Outcome header: null when absent; 400 in live, or for a value it does not know. */
function sandboxOutcomeOf(headers: Headers, env: Env): SandboxOutcome | null {
  const value = headers.get("sandbox-outcome");
  if (value === null) return null;
  if (serviceMode(env) !== "sandbox") fail("sandbox_outcome_in_live");
  const outcome = readSandboxOutcome(value);
  if (typeof outcome !== "string") throw new Refusal(outcome);
  return outcome;
}

/** The orderId of a confirm body, read without zod when it is plainly valid; else its schema decides. */
function confirmedOrderId(body: unknown): { orderId: string } | null {
  const orderId = readOrderId(body);
  return orderId === null ? null : { orderId };
}

/**
 * GET /order/get's query: without an orderId, a reference names the order; with neither, the orderId's 400
 * as always. Each is read without zod when it is plainly valid, else by its own schema (its issues are the
 * 400's details): the document's RetrieveOrderQuery describes both, but would not refuse as they do.
 */
async function retrievedBy(query: unknown): Promise<{ orderId: string } | { reference: string }> {
  const { orderId, reference } = query as { orderId?: unknown; reference?: unknown };
  if (orderId === undefined && reference !== undefined) {
    const read = readReference(query);
    if (read !== null) return { reference: read };
    const parsed = (await schemas()).GetOrderByReferenceQuery.safeParse(query);
    if (!parsed.success) fail("invalid_order_query", issuesOf(parsed.error));
    return { reference: parsed.data.reference };
  }
  const read = readOrderId(query);
  if (read !== null) return { orderId: read };
  const parsed = (await schemas()).GetOrderQuery.safeParse(query);
  if (!parsed.success) fail("invalid_order_query", issuesOf(parsed.error));
  return { orderId: parsed.data.orderId };
}

/** The create's body: the Sandbox-Outcome header is checked first (its 400s before the body's), then JSON. */
async function createBodyOf(request: Request, env: Env): Promise<unknown> {
  sandboxOutcomeOf(request.headers, env);
  return readJson(request, Number(env.MAX_BODY_BYTES));
}

/** Creates the order: priced here, at the edge, then made by its object (the client's reference names it). */
async function createOrder(
  { env, client, headers }: { env: Env; client: Client; headers: Headers },
  body: CreateOrderRequest,
) {
  const outcome = sandboxOutcomeOf(headers, env);
  if (body.webhookUrl !== undefined) {
    const problem = checkWebhookUrl(body.webhookUrl, env.ALLOW_INSECURE_WEBHOOKS === "true");
    if (problem !== null) fail("invalid_webhook_url", { reason: problem }, `webhookUrl is not allowed: ${problem}`);
  }
  const listProblem =
    checkProductList(body, limitsFromEnv(env)) ?? (outcome !== null ? checkSandboxOutcome(body, outcome) : null);
  if (listProblem !== null) throw new Refusal(listProblem);
  const snapshot = await catalogueSnapshot(
    env,
    client.id,
    body.productList.map((line) => line.sku),
    body.wallet,
  );
  // The order object checks the reference first, so a replay is answered with its order even when this
  // plan failed.
  const planned = planOrder(body, snapshot, (supplier) => supplierRefusal(supplier, env) === null);
  const plan = outcome !== null && planned.ok ? { ...planned, lines: scriptLines(planned.lines, outcome) } : planned;
  const stub = env.ORDERS.get(env.ORDERS.idFromName(orderObjectName(client.id, body.reference)));
  const requestHash = await sha256Hex(canonicalCreateRequest(body, outcome));
  return stub.create({
    clientId: client.id,
    request: body,
    requestHash,
    plan,
    maxHeldCodes: Number(env.MAX_HELD_CODES),
    open: { maxOpen: Number(env.MAX_OPEN_ORDERS), backoffStep: Number(env.EXPIRED_ORDERS_BACKOFF_STEP) },
  });
}

/**
 * The stub of the order named by `by`: by id, or by the client's reference. The order object is named by
 * client and reference, so a reference reads the order itself, as an id does; another client's reference
 * names another object, which holds no order of the caller's.
 */
function orderNamed(env: Env, clientId: string, by: { orderId?: string; reference?: string }) {
  if (by.orderId === undefined) return env.ORDERS.get(env.ORDERS.idFromName(orderObjectName(clientId, by.reference!)));
  const id = objectIdOf(env.ORDERS, by.orderId);
  if (id === null) fail("order_not_found");
  return env.ORDERS.get(id);
}

/** This file's routes, each with its description in GET /openapi.json. */
export const orderRoutes: Route[] = [
  route(
    {
      method: "POST",
      path: "/order/create",
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
      body: { schema: async () => (await schemas()).CreateOrderRequest, read: readCreateOrder, from: createBodyOf },
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
    /** Priced here, at the edge, then made by the order object the client's reference names. */
    async (input) => {
      const { order, replayed } = await answer<{ order: string; replayed: boolean }>(createOrder(input, input.body));
      return replayed
        ? input.okJson("Order already exists for this reference", order, { "idempotent-replayed": "true" })
        : input.okJson("Order created successfully", order);
    },
  ),
  route(
    {
      method: "PUT",
      path: "/order/confirm",
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
      body: {
        schema: async () => (await schemas()).ConfirmOrderRequest,
        read: confirmedOrderId,
        refusal: "invalid_order_id",
      },
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
    async ({ body, client, env, ok }) =>
      ok(
        "Order confirmed",
        await answer<{ id: string; state: "confirmed" }>(orderNamed(env, client.id, body).confirm(client.id)),
      ),
  ),
  route(
    {
      method: "GET",
      path: "/order/get",
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
      query: {
        schema: async () => (await schemas()).RetrieveOrderQuery,
        parse: retrievedBy,
        refusal: "invalid_order_query",
      },
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
    async ({ query, client, env, okJson }) =>
      okJson("Order retrieved", await answer<string>(orderNamed(env, client.id, query).get(client.id))),
  ),
];
