/** PUT /wallets/{currency}/alert (wallet-alert-routes.ts): its body and answer. */
import * as z from "zod";
import { CurrencyCode } from "../pricing/amount-schemas";

export const AlertParams = z.object({
  currency: CurrencyCode.meta({ examples: ["USD"] }).describe("The wallet's currency (ISO 4217)."),
});

export const SetAlertRequest = z.strictObject({
  threshold: z
    .string()
    .max(32)
    .nullable()
    .describe(
      'The balance below which `wallet.low` fires: a decimal string, zero or more, with at most the currency\'s minor units (`"100.00"`, not `100.001` in USD). null clears it.',
    )
    .meta({ examples: ["100.00"] }),
});

export const AlertData = z.object({
  currency: CurrencyCode,
  threshold: z.string().nullable().describe("The threshold now, an exact decimal; null: none."),
});
