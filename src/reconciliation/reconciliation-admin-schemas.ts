/** Requests and answers of the reconciliation. */
import * as z from "zod";
import { DEFAULT_GRACE_SECONDS, MAX_PERIOD_MS } from "./reconciliation-rules";

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** GET /admin/reconciliation's query. */
export const ReconciliationQuery = z
  .object({
    createdFrom: Millis.describe("Start of the period, unix milliseconds, inclusive."),
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
  wallets: z.number().int().describe("Wallets in the registry."),
  walletObjects: z.number().int().describe("Wallet objects read: one per region each wallet has been in."),
  ledgerMovements: z.number().int().describe("Ledger movements in the period that name an order."),
  ordersOfMovements: z.number().int().describe("Orders named by those movements, checked against the index."),
  openOrders: z
    .number()
    .int()
    .describe("Orders named by those movements that are still open (created or confirmed): not a mismatch."),
  indexedOrders: z.number().int().describe("Indexed orders created in the period."),
  endedOrders: z.number().int().describe("Of those, orders in an end state whose ledger lines were summed."),
  soldCodes: z.number().int().describe("Codes sold to those orders or sold in the period."),
  leftToNextRun: z.number().int().describe("Orders changed within the grace: left to the next run."),
});

export const MismatchView = z.object({
  check: z
    .enum(["ledger_matches_index", "index_matches_ledger", "codes_match_redeem"])
    .describe("Which check found it (docs/operator-api.md, Reconciliation)."),
  orderId: z.string().nullable().describe("The order; null when the mismatch names no order of this service."),
  clientId: z.string().nullable(),
  problem: z.string().describe("What disagrees, in words."),
  lookAt: z.array(z.string()).describe("The operator routes that show it: the order, the wallet's ledger."),
});

export const ReconciliationData = z.object({
  createdFrom: z.number().int(),
  createdTo: z.number().int(),
  checked: ReconciliationChecked,
  mismatches: z.array(MismatchView),
});

/** The last stored run, as the Needs attention list shows it. */
export const StoredRunView = z.object({
  ranAt: z.number().int().describe("When the run was made, unix milliseconds."),
  createdFrom: z.number().int(),
  createdTo: z.number().int(),
  checked: ReconciliationChecked,
  mismatchCount: z.number().int().describe("Every mismatch the run found."),
  mismatches: z.array(MismatchView).describe("The first 100 of them; every one is also a log line of the run."),
});
