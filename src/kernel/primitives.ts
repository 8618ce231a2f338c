/** Identifiers that several domains read from paths and bodies, defined once. Imports nothing. */
import * as z from "zod";

/** A client's id: chosen by the operator or generated (cli_...); it travels in paths. */
export const ClientIdParam = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and -");

/** SKUs an operator can create: they travel in paths, so letters, digits, `.`, `_` and `-` only. */
export const Sku = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1 to 64 letters, digits, '.', '_' or '-'");

// The same two as path and query parameters, with an example for GET /openapi.json (validation unchanged).
export const ClientIdPath = ClientIdParam.meta({ examples: ["acme"] });
export const SkuPath = Sku.meta({ examples: ["EU-VOUCHER"] });

/** The path of a route about one SKU: `/…/:sku`. */
export const SkuParams = z.object({ sku: SkuPath });
