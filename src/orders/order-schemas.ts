/**
 * The client's order requests: the contract GET /openapi.json documents, and what decides a request the
 * readers of requests.ts do not accept plainly (its issues are the 400's `details`). Loaded with the first
 * such request or with the document, not when the Worker starts. The answers' shapes are in
 * order-view-schemas.ts.
 *
 * Written with zod/mini: zod's classic API defines its methods on every schema it builds, a cost paid
 * again by each first use. `.register(z.globalRegistry, …)` is what classic's `.describe()` and `.meta()` do.
 */
import { en } from "zod/locales";
import * as z from "zod/mini";
import { ProductType } from "../catalogue/catalogue-schemas";
import {
  BOUNDS,
  type CreateOrderRequest as ReadCreateOrderRequest,
  type ProductLineRequest as ReadProductLineRequest,
} from "./requests";

// zod/mini loads no messages, and classic (which sets English when it loads) may not be loaded yet: without
// this line every issue of a client's invalid request would read "Invalid input" (test/orders/messages.test.ts).
z.config(en());

const text = ({ min, max }: { min: number; max: number }) => z.string().check(z.minLength(min), z.maxLength(max));

/**
 * A product line of a create request. Limits and catalogue checks come after the shape: a productType that
 * is not the SKU's (any other string too) is 400 quote_mismatch, not a schema error, so the document lists
 * the two values a request can succeed with while validation takes any string.
 */
export const ProductLineRequest = z.object({
  sku: text(BOUNDS.sku).register(z.globalRegistry, { description: "Unique within the list." }),
  productType: text(BOUNDS.productType).register(z.globalRegistry, {
    enum: ProductType.options,
    description: "The SKU's productType (GET /products); any other value is 400 quote_mismatch.",
  }),
  quote: z.number().register(z.globalRegistry, {
    description:
      "Face value of one code, in the product's currency: one of a fixed SKU's quotes, or within a range SKU's bounds.",
  }),
  quantity: z.number().check(z.int(), z.gte(1)).register(z.globalRegistry, {
    description: "Codes of this SKU and quote; limits per SKU and per order apply (400 product_list_too_big).",
  }),
});
export type ProductLineRequest = ReadProductLineRequest;

/** POST /order/create. Unknown fields are ignored. */
export const CreateOrderRequest = z.object({
  productList: z.array(ProductLineRequest),
  // Any string passes the shape: a wallet the client does not hold, or no currency at all, is 400
  // wallet_not_found ("No wallet in currency usd"), so the document shows the form a wallet can have.
  wallet: text(BOUNDS.wallet).register(z.globalRegistry, {
    pattern: "^[A-Z]{3}$",
    description: "The currency of the wallet to pay from (ISO 4217, e.g. USD); anything else is 400 wallet_not_found.",
  }),
  reference: text(BOUNDS.reference).register(z.globalRegistry, {
    description:
      "The client's own id of the order, unique per client: a create repeated with the same reference and body returns the same order.",
  }),
  webhookUrl: z
    .optional(z.string().check(z.maxLength(BOUNDS.webhookUrl.max)))
    .register(z.globalRegistry, { description: "An https URL that receives this order's events (see `webhooks`)." }),
});
export type CreateOrderRequest = ReadCreateOrderRequest;

// The schema parses into exactly the type the routes read (requests.ts): a compile error if they part.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const parsesAsRead: Same<z.infer<typeof CreateOrderRequest>, CreateOrderRequest> = true;
void parsesAsRead;

/** PUT /order/confirm. */
export const ConfirmOrderRequest = z.object({ orderId: text(BOUNDS.orderId) });

/** GET /order/get?orderId=. */
export const GetOrderQuery = z.object({
  orderId: text(BOUNDS.orderId).register(z.globalRegistry, {
    description: "The `id` of the create answer.",
    examples: ["ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"],
  }),
});

/** GET /order/get?reference=, read only when the query has no orderId. */
export const GetOrderByReferenceQuery = z.object({ reference: text(BOUNDS.reference) });

/** GET /order/get as the document shows it: an order named by its id, or else by the client's reference. */
export const RetrieveOrderQuery = z.object({
  orderId: z.optional(
    text(BOUNDS.orderId).register(z.globalRegistry, {
      description: "The `id` of the create answer. When given, it is what is read (`reference` is then not looked at).",
      examples: ["ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"],
    }),
  ),
  reference: z.optional(
    text(BOUNDS.reference).register(z.globalRegistry, {
      description: "Without `orderId`: the `reference` you gave the order at create (your own orders only).",
      examples: ["po-2026-0042"],
    }),
  ),
});
