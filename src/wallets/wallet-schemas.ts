import * as z from "zod";
import { CurrencyCode } from "../pricing/amount-schemas";

/** What a ledger entry records: the one list of kinds (`LedgerKind` in ledger.ts is inferred from it). */
export const LedgerKindSchema = z.enum([
  "top_up",
  "adjustment",
  "order_charge",
  "order_refund",
  "order_void",
  "move_out",
  "move_in",
]);

export const WalletView = z.object({
  currency: CurrencyCode,
  balance: z.number(),
  lowBalanceThreshold: z
    .string()
    .optional()
    .describe("Your low-balance threshold (PUT /wallets/{currency}/alert), an exact decimal; absent: none."),
});

/** GET /wallets: the calling client's wallets. */
export const WalletList = z.object({ wallets: z.array(WalletView) });

/** GET /wallets/{currency}/ledger and …/statement: the calling client's wallet in that currency. */
export const ClientWalletParams = z.object({
  currency: CurrencyCode.meta({ examples: ["USD"] }).describe("The wallet's currency (ISO 4217)."),
});

/** The kinds of movement a client sees: a move of the wallet between its objects is none. */
export const MovementKindSchema = z
  .enum(["top_up", "adjustment", "order_charge", "order_refund", "order_void"])
  .describe(
    "`top_up`: money paid in; `adjustment`: an operator's correction, either way; `order_charge`: an order confirmed; `order_refund`: a line of an order that could not be fulfilled, paid back; `order_void`: the charge of an order that was voided, paid back.",
  );

/** One movement of the client's money, as its ledger and statement show it. */
export const MovementView = z.object({
  createdAt: z.number().int().describe("When the money moved (ms since the epoch)."),
  kind: MovementKindSchema,
  amount: z.number().describe("Signed, in the wallet's currency: credits positive, debits negative."),
  balanceAfter: z.number().describe("The wallet's balance right after this movement."),
  orderId: z.string().nullable().describe("The order the movement is for; null for a top-up or an adjustment."),
  reference: z.string().nullable().describe("That order's `reference`, as you gave it at create."),
  sku: z.string().nullable().describe("For a refund: the SKU of the line that could not be fulfilled."),
  note: z.string().nullable().describe("For a top-up or an adjustment: the reason given with it."),
});

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

export const ClientLedgerQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Return the movements after this one: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});

/** GET /wallets/{currency}/ledger. */
export const ClientLedgerPage = z.object({
  currency: CurrencyCode,
  movements: z.array(MovementView).describe("Oldest first."),
  next: z.number().int().nullable().describe("Pass as `after` for the next page; null on the last page."),
});

export const StatementQuery = z
  .object({
    from: Millis.describe("The period's start, ms since the epoch, inclusive."),
    to: Millis.describe("The period's end, ms since the epoch, inclusive."),
  })
  .refine((query) => query.from <= query.to, { message: "`from` must not be after `to`", path: ["to"] });

/** GET /wallets/{currency}/statement with `Accept: application/json`. */
export const StatementData = z.object({
  currency: CurrencyCode,
  from: z.number().int(),
  to: z.number().int(),
  openingBalance: z.number().describe("The balance just before `from`."),
  movements: z.array(MovementView).describe("Every movement from `from` to `to`, oldest first."),
  closingBalance: z.number().describe("The opening balance plus every movement: the balance at the end of `to`."),
});
