/** Operator API: the exports across clients, background jobs that write their CSV to R2 in chunks. */
import { route, type Route } from "../http/route";
import { ORDER_CSV_COLUMNS } from "../order-index/order-search";
import { listJobs } from "./export-store";
import { ExportData, ExportListQuery, ExportPage, ExportParams, StartExportRequest } from "./export-admin-schemas";
import { exportExamples } from "./export-examples";
import { exportFile, requireExport, startExport, viewOf } from "./export-jobs";
import type { ExportFilter } from "./export-rules";

/** The page size of the list when a request gives none. */
const LIST_PAGE_SIZE = 20;

const JOB_NOTE =
  "An export reads each client's books (its shards, through the directory of their days), days newest first and, within a day, by client and part, each part's orders newest first: a step of at most 5,000 orders from at most 200 shards writes one numbered chunk, and the queue's consumer runs the next. Orders created after the job was asked for are left out.";

/** This file's routes, each with its description in GET /openapi.json. */
export const exportRoutes: Route[] = [
  route(
    {
      // Gathered before /admin/orders/:orderId (app.ts), which would take "exports" for an order id.
      method: "POST",
      path: "/admin/orders/exports",
      operationId: "adminStartOrderExport",
      example: exportExamples.adminStartOrderExport,
      tag: "Admin: orders",
      summary: "Export every order a filter selects, across clients, as a background job",
      description: `Starts a job that writes every order \`filter\` selects (the filters of GET /admin/orders/export; \`{}\` for every order of every client) as CSV, with the columns and values of GET /admin/orders/export, and answers the job. Follow it with GET /admin/orders/exports/:id and download its file once \`state\` is \`done\`. ${JOB_NOTE} The job names who asked; it is a read, so not audited. For one client's orders GET /admin/orders/export streams the file at once.`,
      auth: "admin",
      role: "viewer",
      body: StartExportRequest,
      data: ExportData,
      messages: ["Export started"],
      checks: [
        {
          when: "The body: `filter` given, each filter's form, a reference prefix only with `clientId`",
          codes: ["invalid_request_body"],
        },
      ],
    },
    async ({ body, env, caller, ok }) =>
      ok("Export started", { export: await startExport(env, caller.actor, body.filter as ExportFilter) }),
  ),
  route(
    {
      method: "GET",
      path: "/admin/orders/exports",
      operationId: "adminListOrderExports",
      example: exportExamples.adminListOrderExports,
      tag: "Admin: orders",
      summary: "The exports across clients, newest first, with their progress",
      description: "Every export job, newest first, a page at a time: pass `next` as `before` for the next page.",
      auth: "admin",
      role: "viewer",
      query: ExportListQuery,
      data: ExportPage,
      messages: ["Exports"],
      checks: [{ when: "The query: `before` and `limit` 1..100", codes: ["invalid_parameters"] }],
    },
    async ({ query, env, ok }) => {
      const limit = query.limit ?? LIST_PAGE_SIZE;
      const jobs = await listJobs(env.DB, query.before ?? null, limit + 1);
      const shown = jobs.slice(0, limit);
      return ok("Exports", {
        exports: shown.map(viewOf),
        next: jobs.length > limit ? shown[shown.length - 1]!.id : null,
      });
    },
  ),
  route(
    {
      method: "GET",
      path: "/admin/orders/exports/:id",
      operationId: "adminGetOrderExport",
      example: exportExamples.adminGetOrderExport,
      tag: "Admin: orders",
      summary: "One export across clients, with its progress",
      description: "The job's filter, state, orders and chunks written, and the days walked of its range.",
      auth: "admin",
      role: "viewer",
      params: ExportParams,
      data: ExportData,
      messages: ["Export"],
      checks: [
        { when: "The path: `id` a positive integer", codes: ["invalid_parameters"] },
        { when: "The export exists", codes: ["export_not_found"] },
      ],
    },
    async ({ params, env, ok }) => ok("Export", { export: viewOf(await requireExport(env.DB, params.id)) }),
  ),
  route(
    {
      method: "GET",
      path: "/admin/orders/exports/:id/file",
      operationId: "adminDownloadOrderExport",
      example: exportExamples.adminDownloadOrderExport,
      tag: "Admin: orders",
      summary: "The file of a finished export across clients, as CSV",
      description: `The header row, then every chunk of the job in order, streamed from storage as it is read (RFC 4180, CRLF; text cells that a spreadsheet would run as a formula get a leading apostrophe, as in GET /admin/orders/export). A chunk missing breaks the download off rather than ending it as if complete. 409 while the job runs.`,
      auth: "admin",
      role: "viewer",
      params: ExportParams,
      data: null,
      file: {
        mediaType: "text/csv",
        description: `A header row (${ORDER_CSV_COLUMNS.join(", ")}), then one row per order.`,
      },
      headers: {
        "Content-Disposition": {
          description: '`attachment; filename="orders-export-<id>.csv"`',
          schema: { type: "string" },
        },
      },
      checks: [
        { when: "The path: `id` a positive integer", codes: ["invalid_parameters"] },
        { when: "The export exists", codes: ["export_not_found"] },
        { when: "The export is done", codes: ["export_not_finished"] },
      ],
    },
    async ({ params, env }) => {
      const job = await requireExport(env.DB, params.id);
      return new Response(exportFile(env, job), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="orders-export-${job.id}.csv"`,
        },
      });
    },
  ),
];
