/** Requests and responses of the operator's exports across clients (background jobs writing CSV to R2). */
import * as z from "zod";
import { ClientIdPath, Sku } from "../kernel/primitives";
import { OrderState } from "../orders/order-view-schemas";

/** Unix ms, in a JSON body. */
const Millis = z.number().int().min(0).max(8_640_000_000_000_000);

/** What an export selects: the filters of GET /admin/orders/export, each optional. */
export const ExportFilter = z.strictObject({
  clientId: ClientIdPath.optional().describe("Only this client's orders."),
  state: OrderState.optional().describe("Only orders in this state."),
  sku: Sku.optional()
    .describe("Only orders with a line of this SKU.")
    .meta({ examples: ["DEMO-EU-FIXED"] }),
  createdFrom: Millis.optional().describe("Only orders created at or after this time (Unix ms, inclusive)."),
  createdTo: Millis.optional().describe(
    "Only orders created at or before this time (Unix ms, inclusive); the job's own creation time at the latest.",
  ),
  reference: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("Only references that start with this prefix. Needs `clientId`: references are each client's own."),
});

/** `filter` is required, `{}` for every order: an export of everything is asked for, never sent by accident. */
export const StartExportRequest = z.strictObject({
  filter: ExportFilter.describe("The filters, each optional: `{}` exports every order."),
});

export const ExportParams = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The export's id."),
});

export const ExportListQuery = z.strictObject({
  before: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("Cursor: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Page size, 1..100, default 20."),
});

export const ExportView = z.object({
  id: z.number().int(),
  filter: ExportFilter.describe("The filter as the job runs it: `createdTo` is at most the job's creation time."),
  state: z.enum(["running", "done"]).describe("`done`: every chunk is written and the file can be downloaded."),
  rows: z.number().int().describe("Orders written so far."),
  chunks: z.number().int().describe("Chunks written so far: a chunk is one step of at most 5,000 orders."),
  fromDay: z.number().int().describe("The oldest UTC day walked (days since 1970-01-01)."),
  toDay: z.number().int().describe("The newest UTC day walked: the job walks days newest first."),
  daysDone: z.number().int().describe("Days walked past so far."),
  days: z.number().int().describe("Days to walk in all."),
  requestedBy: z.string().describe("Who asked: `operator:<id>`, or the label of ADMIN_TOKEN."),
  requestedByName: z.string().nullable().describe("The operator's name when asked."),
  createdAt: z.number().int().describe("Unix ms."),
  steppedAt: z.number().int().describe("Unix ms of the last step (the creation before the first)."),
  finishedAt: z.number().int().nullable().describe("Unix ms of the last chunk; null while running."),
});

export const ExportData = z.object({ export: ExportView });

export const ExportPage = z.object({
  exports: z.array(ExportView).describe("Newest first."),
  next: z.number().int().nullable().describe("Cursor of the next page (pass as `before`), null on the last page."),
});
