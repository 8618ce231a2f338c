/** The answer of POST /admin/orders/index/run: what one run of the order indexer read and wrote. */
import * as z from "zod";

export const IndexerRunData = z.object({
  wallets: z.number().int().describe("Wallet objects whose ledger was read."),
  entries: z.number().int().describe("New ledger entries read that name an order."),
  orders: z.number().int().describe("Orders read from their objects."),
  rowsWritten: z.number().int().describe("D1 rows written, index entries included."),
  open: z.number().int().describe("Orders indexed while still open, read again by the next run."),
  behind: z
    .number()
    .int()
    .describe("Wallet objects left with new entries when the run reached its bound of pages: the next runs catch up."),
});
