/**
 * Examples of the exports across clients in GET /openapi.json: a job asked for the demo client's orders of
 * one reference prefix, running and then done, and its file (the header, then the orders' example order
 * as the export writes it). test/openapi/examples.test.ts checks each against a real answer.
 */
import { csvLine } from "../kernel/csv-export";
import { ORDER_CSV_COLUMNS, orderCsvLine, orderSummaryOf } from "../order-index/order-search";
import { indexRowOf } from "../order-index/order-index-store";
import { EXAMPLE_SUCCESSFUL } from "../orders/order-examples";
import type { ExportView } from "./export-jobs";

const filter = { clientId: "demo", reference: "po-2026-0042", createdTo: 1795300060000 };
const running: ExportView = {
  id: 7,
  filter,
  state: "running",
  rows: 0,
  chunks: 0,
  fromDay: 20778,
  toDay: 20778,
  daysDone: 0,
  days: 1,
  // Asked with ADMIN_TOKEN: its label, and no name (a named operator's is `operator:<id>` with its name).
  requestedBy: "admin:17d6bfe0",
  requestedByName: null,
  createdAt: 1795300060000,
  steppedAt: 1795300060000,
  finishedAt: null,
};
const done: ExportView = {
  ...running,
  state: "done",
  rows: 1,
  chunks: 1,
  daysDone: 1,
  steppedAt: 1795300061200,
  finishedAt: 1795300061200,
};

export const exportExamples = {
  adminStartOrderExport: {
    request: { filter: { clientId: "demo", reference: "po-2026-0042" } },
    data: { export: running },
  },
  adminListOrderExports: { data: { exports: [done], next: null } },
  adminGetOrderExport: { data: { export: done } },
  adminDownloadOrderExport: {
    data: null,
    file: csvLine([...ORDER_CSV_COLUMNS]) + orderCsvLine(orderSummaryOf(indexRowOf(EXAMPLE_SUCCESSFUL))),
  },
};
