/** Requests and answers of the reconciliation. */
import * as z from "zod";
import { CHECK_NAMES, DEFAULT_GRACE_SECONDS, MAX_PERIOD_MS } from "./reconciliation-rules";

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** GET /admin/reconciliation's query. */
export const ReconciliationQuery = z
  .object({
    createdFrom: Millis.describe("Start of the period of changes checked, unix milliseconds, inclusive."),
    createdTo: Millis.describe("End of the period, unix milliseconds, inclusive; at most 31 days after `createdFrom`."),
    grace: z.coerce
      .number()
      .int()
      .min(0)
      .max(86_400)
      .optional()
      .describe(
        `Seconds: orders and movements changed this recently are left to the next run (default ${DEFAULT_GRACE_SECONDS}).`,
      ),
  })
  .refine((query) => query.createdFrom <= query.createdTo, {
    message: "createdFrom is after createdTo",
    path: ["createdFrom"],
  })
  .refine((query) => query.createdTo - query.createdFrom <= MAX_PERIOD_MS, {
    message: "the period is longer than 31 days",
    path: ["createdTo"],
  });

export const ReconciliationChecked = z.object({
  days: z.number().int().describe("Wallet-days checked: a client's wallet (currency) on one UTC day."),
  sealedDays: z
    .number()
    .int()
    .describe("Of those, days sealed: their summaries agreed, or every order drilled into did."),
  orders: z
    .number()
    .int()
    .describe(
      "Orders drilled into (days that disagreed): the order object, its books row, its ledger lines and its codes.",
    ),
  ordersPastBound: z
    .number()
    .int()
    .describe("Of those, orders still changing whose day had not settled within an hour: judged all the same."),
  wallets: z.number().int().describe("Wallets whose balances were checked against their ledgers across their objects."),
  walletObjects: z
    .number()
    .int()
    .describe("Wallet objects read: one per region each wallet of a day checked has been in."),
  ledgerEntries: z.number().int().describe("Ledger entries of the days checked."),
  postingAudits: z
    .number()
    .int()
    .describe("Top-ups and adjustments of the days checked, and audit rows of the feed, compared with each other."),
  soldCodes: z
    .number()
    .int()
    .describe("Codes the codes table sells to the days' orders, compared with those their books say were delivered."),
  transfers: z.number().int().describe("Move transfers whose other side was read."),
  leftToNextRun: z
    .number()
    .int()
    .describe("Orders still changing (their day left settling), and wallet-days due beyond this pass's budget."),
  handedOut: z
    .number()
    .int()
    .describe("Wallet-days a stored pass handed to the reconciliation's queue, whose consumer checks them (0 here)."),
});

export const MismatchView = z.object({
  check: z.enum(CHECK_NAMES).describe("Which check found it (docs/operator-api.md, Reconciliation)."),
  orderId: z
    .string()
    .nullable()
    .describe("The order; null when the mismatch is a wallet's or names no order of this service."),
  clientId: z.string().nullable(),
  problem: z.string().describe("What disagrees, in words."),
  lookAt: z.array(z.string()).describe("The operator routes that show it: the order, the wallet's ledger."),
});

export const ReconciliationData = z.object({
  createdFrom: z.number().int().describe("Start of the span of changes read, unix milliseconds."),
  createdTo: z.number().int().describe("End of the span, unix milliseconds."),
  complete: z
    .boolean()
    .describe("False when a budget stopped the run: days left to the next pass, or a day larger than one check reads."),
  checked: ReconciliationChecked,
  mismatches: z.array(MismatchView),
  alerts: z
    .array(z.string())
    .describe(
      "Alert lines: a run that did not finish, days left to the next pass, a client's day too large for one check or not settling (each names the client).",
    ),
});

/** The last stored run, as the Needs attention list shows it. */
export const StoredRunView = z.object({
  ranAt: z.number().int().describe("When the run was made, unix milliseconds."),
  createdFrom: z.number().int(),
  createdTo: z.number().int(),
  checked: ReconciliationChecked,
  mismatchCount: z.number().int().describe("Every mismatch standing after the run (found and not since found gone)."),
  mismatches: z
    .array(MismatchView)
    .describe("The first 100 of them; every one is also a log line of the run that found it."),
  alerts: z.array(z.string()).describe("The run's alert lines."),
});
