/** Parameters many routes declare alike (the router reads them: src/http/inputs.ts). */
import * as z from "zod";

/** The query of a paged list: `after` (the `next` of the previous page) and `limit`. */
export const PageQuery = z.object({
  after: z.string().min(1).max(128).optional().describe("Cursor: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});
