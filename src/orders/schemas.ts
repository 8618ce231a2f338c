/**
 * The client's order requests, checked when a request arrives. The answers' shapes are in
 * view-schemas.ts: only GET /openapi.json reads those, so they load with the document.
 *
 * Written with zod/mini, as everything the Worker evaluates at start-up is: zod's classic API defines its
 * methods on every schema it builds, which was a third of the Worker's start-up work (docs/benchmarks.md).
 * `.register(z.globalRegistry, …)` is what classic's `.describe()` and `.meta()` do.
 */
import * as z from "zod/mini";
import { ProductType } from "../catalogue/schemas";

/**
 * A product line of a create request. Limits and catalogue checks come after the shape: a productType that
 * is not the SKU's (any other string too) is 400 quote_mismatch, not a schema error, so the document lists
 * the two values a request can succeed with while validation takes any string.
 */
export const ProductLineRequest = z.object({
  sku: z.string().check(z.minLength(1), z.maxLength(64)).register(z.globalRegistry, { description: "Unique within the list." }),
  productType: z
    .string()
    .check(z.minLength(1), z.maxLength(32))
    .register(z.globalRegistry, { enum: ProductType.options, description: "The SKU's productType (GET /products); any other value is 400 quote_mismatch." }),
  quote: z.number().register(z.globalRegistry, { description: "Face value of one code, in the product's currency: one of a fixed SKU's quotes, or within a range SKU's bounds." }),
  quantity: z
    .number()
    .check(z.int(), z.gte(1))
    .register(z.globalRegistry, { description: "Codes of this SKU and quote; limits per SKU and per order apply (400 product_list_too_big)." }),
});
export type ProductLineRequest = z.infer<typeof ProductLineRequest>;

/** POST /order/create. Unknown fields are ignored. */
export const CreateOrderRequest = z.object({
  productList: z.array(ProductLineRequest),
  // Any string passes the shape: a wallet the client does not hold, or no currency at all, is 400
  // wallet_not_found ("No wallet in currency usd"), so the document shows the form a wallet can have.
  wallet: z
    .string()
    .check(z.minLength(1), z.maxLength(16))
    .register(z.globalRegistry, { pattern: "^[A-Z]{3}$", description: "The currency of the wallet to pay from (ISO 4217, e.g. USD); anything else is 400 wallet_not_found." }),
  reference: z
    .string()
    .check(z.minLength(1), z.maxLength(256))
    .register(z.globalRegistry, { description: "The client's own id of the order, unique per client: a create repeated with the same reference and body returns the same order." }),
  webhookUrl: z
    .optional(z.string().check(z.maxLength(2048)))
    .register(z.globalRegistry, { description: "An https URL that receives this order's events (see `webhooks`)." }),
});
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/** PUT /order/confirm. */
export const ConfirmOrderRequest = z.object({ orderId: z.string().check(z.minLength(1), z.maxLength(256)) });

/** GET /order/get?orderId=. */
export const GetOrderQuery = z.object({
  orderId: z
    .string()
    .check(z.minLength(1), z.maxLength(256))
    .register(z.globalRegistry, { description: "The `id` of the create answer.", examples: ["ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"] }),
});
