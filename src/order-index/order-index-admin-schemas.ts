/** The answer of POST /admin/orders/index/run: what one run of the repair pass read and wrote. */
import * as z from "zod";

export const RepairRunData = z.object({
  orders: z.number().int().describe("Orders the index holds as open, asked to write their row again."),
  rowsWritten: z
    .number()
    .int()
    .describe("D1 rows those orders wrote, index entries included: 0 when the index already had each one."),
  rowsRead: z.number().int().describe("D1 rows the run read to find them."),
  open: z.number().int().describe("Orders the index holds as open after the run."),
  more: z
    .boolean()
    .describe("Whether the run stopped at its bound (2,000 orders): the next run resumes after the last it asked."),
});
