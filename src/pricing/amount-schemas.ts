/** Currencies and decimal amounts as requests give them: one definition for every domain. */
import * as z from "zod";
import { MINOR_UNITS } from "./money";

/** An ISO 4217 currency code as answers carry it: three capital letters. */
export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code like USD");

/** A currency the service accepts: the ISO 4217 codes of MINOR_UNITS. */
export const Currency = z.enum(Object.keys(MINOR_UNITS).sort() as [string, ...string[]]);

/** A positive decimal given as a string (exact) or a JSON number; canonicalised with Money before use. */
export const PositiveDecimal = z.union([
  z.string().regex(/^\d{1,15}(\.\d{1,12})?$/, "a decimal like 10 or 12.5"),
  z.number().positive().max(1e15),
]);

/** A non-negative decimal (fees and discounts may be zero). */
export const NonNegativeDecimal = z.union([
  z.string().regex(/^\d{1,15}(\.\d{1,12})?$/, "a decimal like 0, 2 or 2.5"),
  z.number().nonnegative().max(1e15),
]);
