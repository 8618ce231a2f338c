/**
 * Requests and responses of the operator API for redeem codes. Requests are strict objects: an unknown field is
 * a 400, so that a typo ("quote" for "quotes") is refused instead of silently ignored.
 */
import * as z from "zod";
import { PositiveDecimal } from "../pricing/amount-schemas";

export const CodeInput = z.strictObject({
  value: PositiveDecimal.describe("The code's face value: one of a fixed SKU's quotes or within a range SKU's bounds."),
  pin: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/, "printable ASCII, no leading, trailing or double spaces"),
  link: z.url({ protocol: /^https?$/ }).max(2048),
});

/**
 * POST /admin/products/:sku/codes as application/json. The same upload as text/csv has a header row naming
 * the columns value, pin and link (in any order), then one code per row.
 */
export const UploadCodesRequest = z.strictObject({ codes: z.array(CodeInput).min(1).max(10_000) });
export type UploadCodesRequest = z.infer<typeof UploadCodesRequest>;

export const ValueStock = z.object({
  value: z.number(),
  available: z.number().int(),
  reserved: z.number().int(),
  sold: z.number().int(),
});

export const CodeStock = z.object({ sku: z.string(), byValue: z.array(ValueStock) });

export const UploadCodesData = z.object({
  sku: z.string(),
  added: z.number().int(),
  stock: z.array(ValueStock).describe("Code counts per value after the upload."),
});
