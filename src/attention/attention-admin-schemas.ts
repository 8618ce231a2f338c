/** Requests and answers of the thresholds and of GET /admin/attention. */
import * as z from "zod";
import { TimerFailureView } from "../orders/order-admin-schemas";
import { StoredRunView } from "../reconciliation/reconciliation-admin-schemas";
import { CurrencyCode } from "../pricing/amount-schemas";
import { DeadLetterView } from "../webhooks/dead-letter-admin-schemas";
import { AmountInput } from "../wallets/wallet-admin-schemas";

/** PUT /admin/products/:sku/low-stock-threshold. */
export const StockThresholdRequest = z.strictObject({
  threshold: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .nullable()
    .describe(
      "Listed as low while fewer codes than this are available, all values together; null removes the threshold.",
    ),
});

export const StockThresholdData = z.object({
  sku: z.string(),
  threshold: z.number().int().nullable(),
  available: z.number().int().describe("Codes available now (unsold, unreserved), all values together."),
});

/** PUT /admin/wallets/:clientId/:currency/low-balance-threshold. */
export const WalletThresholdRequest = z.strictObject({
  threshold: AmountInput.nullable().describe(
    "Listed as low while the balance is below this, in the wallet's currency with at most its minor units; null removes the threshold.",
  ),
});

export const WalletThresholdData = z.object({
  clientId: z.string(),
  currency: CurrencyCode,
  threshold: z.number().nullable(),
  balance: z.number(),
});

export const LowStockView = z.object({
  sku: z.string(),
  name: z.string(),
  threshold: z.number().int(),
  available: z.number().int().describe("Codes available (unsold, unreserved), all values together."),
  byValue: z
    .array(z.object({ value: z.number(), available: z.number().int() }))
    .describe(
      "Available codes per value: every quote of a fixed SKU (0 included), the values in stock of a range SKU.",
    ),
});

export const LowBalanceView = z.object({
  clientId: z.string(),
  currency: CurrencyCode,
  threshold: z.number(),
  balance: z.number(),
});

export const NewOperatorView = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(["viewer", "operator", "admin"]),
  createdAt: z.number().int(),
  createdBy: z
    .string()
    .nullable()
    .describe("The credential that made it: `operator:<id>`, or `break-glass` for ADMIN_TOKEN; null when not known."),
});

export const FailedOrderView = z.object({
  clientId: z.string(),
  orderId: z.string(),
  createdAt: z.number().int().describe("Unix ms."),
  state: z.enum(["failed", "partial"]),
  wallet: z.string().describe("The wallet's currency: the currency of the amounts."),
  reference: z.string(),
  lines: z
    .array(z.object({ sku: z.string(), supplier: z.string(), quantity: z.number().int(), amount: z.number() }))
    .describe("The order's failed lines (each refunded to the wallet): SKU, supplier, quantity and charge."),
  foundAt: z.number().int().describe("Unix ms: when the order's books recorded how it ended."),
});

export const AttentionData = z.object({
  newOperators: z
    .array(NewOperatorView)
    .describe(
      "Live only (empty in the sandbox): operators made in the last 7 days, newest first, at most 50. A new operator is a credential one person could have made to approve its own postings: each is shown to everyone for a week.",
    ),
  stuckOrders: z.object({
    orders: z.array(TimerFailureView).describe("The first 50 of GET /admin/orders/stuck."),
    more: z.boolean().describe("Whether GET /admin/orders/stuck lists more."),
  }),
  failedOrders: z.object({
    orders: z
      .array(FailedOrderView)
      .describe(
        "Orders that ended failed or partial in the last 7 days, newest first, at most 50: the books' exceptions, recorded by each order's books within seconds of its end.",
      ),
    more: z.boolean().describe("Whether more such orders ended in those 7 days."),
  }),
  deadLetters: z.object({
    deadLetters: z.array(DeadLetterView).describe("The newest 50 dead letters not replayed yet."),
    more: z.boolean().describe("Whether GET /admin/webhooks/dead-letters lists more pending ones."),
  }),
  lowStock: z
    .array(LowStockView)
    .describe("Active inventory SKUs with fewer available codes than their low-stock threshold, by SKU."),
  lowBalance: z
    .array(LowBalanceView)
    .describe("Wallets whose balance is below their low-balance threshold, by client and currency."),
  reconciliation: StoredRunView.nullable().describe(
    "The last reconciliation run (hourly over the last day, or the console's run now) with its mismatches; null before the first.",
  ),
});
