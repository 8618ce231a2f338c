/**
 * The client's three order requests read without zod: what a create, confirm or retrieve runs on.
 *
 * The schemas in schemas.ts are the contract (the API document is built from them, and their issues are a
 * 400's `details`), but zod is the largest part of what the Worker would evaluate at start-up, so it is not
 * loaded then (scripts/check-startup.mjs). Each reader here returns the request exactly as its schema
 * would parse it, or null for anything that is not plainly valid; then the route loads the schema and lets
 * it decide and explain. So a reader only has to be right about what it accepts, and
 * test/orders/requests.test.ts checks that over valid values, every bound and malformed ones: whatever a
 * reader accepts, its schema accepts with the same result. The bounds are declared once, here, and the
 * schemas use them.
 */

/** A product line of a create request, as read (its schema, with what each field means, in schemas.ts). */
export interface ProductLineRequest {
  sku: string;
  productType: string;
  quote: number;
  quantity: number;
}

/** POST /order/create's body, as read. */
export interface CreateOrderRequest {
  productList: ProductLineRequest[];
  wallet: string;
  reference: string;
  webhookUrl?: string;
}

/**
 * What becomes of each field of a create besides productList (which becomes the order's lines): the order
 * keeps them all as sent, and its client's view (GET /order/get, src/orders/order-view.ts) shows the
 * "shown" ones under their own names, with their request schema (order-view-schemas.ts). A new field of the
 * request must be named here (a compile error otherwise): shown, or hidden with the reason.
 */
export const ORDER_FIELDS = {
  // Shown as the invoice's `wallet`.
  wallet: "hidden",
  reference: "shown",
  // Where the service delivers the order's events: a setting of the delivery, not part of the order.
  webhookUrl: "hidden",
} as const satisfies {
  [Field in keyof Omit<CreateOrderRequest, "productList">]-?: "shown" | "hidden";
};

export type OrderField = keyof typeof ORDER_FIELDS;
export type ShownOrderField = {
  [Field in OrderField]: (typeof ORDER_FIELDS)[Field] extends "shown" ? Field : never;
}[OrderField];

/** The create's fields the client's view shows, in the order the request declares them. */
export const SHOWN_ORDER_FIELDS = (Object.keys(ORDER_FIELDS) as OrderField[]).filter(
  (field): field is ShownOrderField => ORDER_FIELDS[field] === "shown",
);

/** The fields of a create an order's view shows, as the order keeps them. */
export type ShownOrderFields = Pick<CreateOrderRequest, ShownOrderField>;

/**
 * The request as the idempotency of `reference` compares it: parsed, with defaults, in a fixed order. A
 * Sandbox-Outcome is part of it when sent (so a replay with another outcome is another request), and
 * absent otherwise, so the requests of orders stored before it existed compare as they did.
 */
export function canonicalCreateRequest(request: CreateOrderRequest, outcome: string | null): string {
  const canonical: Record<string, unknown> = {
    productList: request.productList.map((line) => [line.sku, line.productType, line.quote, line.quantity]),
  };
  // Every field of the request (ORDER_FIELDS). An absent webhookUrl was always compared as null; a field
  // added since is left out while absent, so that the hash of an order stored before it stays the same.
  for (const field of Object.keys(ORDER_FIELDS) as OrderField[]) {
    const value = request[field];
    if (value !== undefined) canonical[field] = value;
    else if (field === "webhookUrl") canonical[field] = null;
  }
  if (outcome !== null) canonical.sandboxOutcome = outcome;
  return JSON.stringify(canonical);
}

/** Lengths of the requests' strings, in code points as zod counts them (a surrogate pair is one). */
export const BOUNDS = {
  sku: { min: 1, max: 64 },
  productType: { min: 1, max: 32 },
  wallet: { min: 1, max: 16 },
  reference: { min: 1, max: 256 },
  webhookUrl: { min: 0, max: 2048 },
  orderId: { min: 1, max: 256 },
} as const;

type Bounded = keyof typeof BOUNDS;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Code points as zod's length checks count them: a high surrogate followed by a low one is one, any other unit one. */
function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count -= 1;
      i += 1;
    }
  }
  return count;
}

function isText(value: unknown, field: Bounded): value is string {
  if (typeof value !== "string") return false;
  const { min, max } = BOUNDS[field];
  // A code point is one or two units: at most `max` units and at least twice `min` is within the bounds
  // whatever the string holds, so only a string outside that needs counting (as zod does).
  if (value.length <= max && value.length >= 2 * min) return true;
  const length = codePointLength(value);
  return length >= min && length <= max;
}

/** POST /order/create's body, or null for the schema to decide. Unknown fields are dropped, as the schema drops them. */
export function readCreateOrder(body: unknown): CreateOrderRequest | null {
  if (!isRecord(body) || !Array.isArray(body.productList)) return null;
  const productList: ProductLineRequest[] = [];
  for (const line of body.productList as unknown[]) {
    if (!isRecord(line)) return null;
    const { sku, productType, quote, quantity } = line;
    if (!isText(sku, "sku") || !isText(productType, "productType")) return null;
    if (typeof quote !== "number" || !Number.isFinite(quote)) return null;
    if (typeof quantity !== "number" || !Number.isSafeInteger(quantity) || quantity < 1) return null;
    productList.push({ sku, productType, quote, quantity });
  }
  const { wallet, reference, webhookUrl } = body;
  if (!isText(wallet, "wallet") || !isText(reference, "reference")) return null;
  if (webhookUrl === undefined) return { productList, wallet, reference };
  return isText(webhookUrl, "webhookUrl") ? { productList, wallet, reference, webhookUrl } : null;
}

/** The reference of GET /order/get's query (read when it has no orderId), or null for the schema to decide. */
export function readReference(input: unknown): string | null {
  if (!isRecord(input)) return null;
  return isText(input.reference, "reference") ? input.reference : null;
}

/** The orderId of PUT /order/confirm's body or of GET /order/get's query, or null for the schema to decide. */
export function readOrderId(input: unknown): string | null {
  if (!isRecord(input)) return null;
  return isText(input.orderId, "orderId") ? input.orderId : null;
}
