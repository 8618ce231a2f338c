/** The answer of POST /admin/orders/index/run: what one run of the repair pass read and wrote. */
import * as z from "zod";

export const RepairRunData = z.object({
  orders: z
    .number()
    .int()
    .describe(
      "Orders the books hold as open (in the shards of the last 31 days whose published figures count open orders), asked to write their row again.",
    ),
  rowsWritten: z
    .number()
    .int()
    .describe("Rows those orders wrote to their books: 0 when the books already had each one."),
  rowsRead: z.number().int().describe("D1 rows the run read to find them (its cursor and the books' directory)."),
  open: z
    .number()
    .int()
    .describe("Open orders of the last 31 days after the run, as the shards last published them (within the hour)."),
  more: z
    .boolean()
    .describe("Whether the run stopped at its bound (2,000 orders): the next run resumes after the last it asked."),
});
