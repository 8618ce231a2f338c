import { z } from "zod";

/** A positive decimal amount, given as a string (exact) or a JSON number. */
export const AmountInput = z.union([z.string().regex(/^\d{1,15}(\.\d{1,8})?$/, "a decimal amount like 100 or 12.50"), z.number().positive().finite()]);

export const TopUpRequest = z.object({
  amount: AmountInput,
  idempotencyKey: z.string().min(1).max(128),
  reason: z.string().min(1).max(500),
});
export type TopUpRequest = z.infer<typeof TopUpRequest>;

export const CurrencyParam = z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code like USD");
export const ClientIdParam = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and -");

export const LedgerEntryView = z.object({
  seq: z.number().int(),
  key: z.string(),
  kind: z.enum(["top_up", "adjustment", "order_charge", "order_refund", "order_void"]),
  amount: z.number(),
  balanceAfter: z.number(),
  orderId: z.string().nullable(),
  reason: z.string().nullable(),
  createdAt: z.number().int(),
});

export const WalletView = z.object({ currency: z.string(), balance: z.number() });
