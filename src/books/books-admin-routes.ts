/** Operator API: how long the client's books are kept (docs/books.md, "Retention"). */
import { route, type Route } from "../http/route";
import { RetentionData, RetentionRequest } from "./books-admin-schemas";
import { booksExamples } from "./books-examples";
import { booksRetention, setBooksRetention } from "./retention-actions";
import { MIN_RETENTION_DAYS } from "./retention-rules";

const RETENTION_NOTE = `The scheduled job (every 5 minutes) drops each UTC day of every client's books older than the setting, a bounded number of days a run; without a setting, the default, everything is kept. At least ${MIN_RETENTION_DAYS} days, so that the charts' window and a month of events stay whole.`;

/** This file's routes, each with its description in GET /openapi.json. */
export const booksRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/books/retention",
      operationId: "adminGetBooksRetention",
      example: booksExamples.adminGetBooksRetention,
      tag: "Admin: orders",
      summary: "How long the client's books are kept",
      description: `Days of books kept (null: everything), the oldest day kept now, and who set it when. ${RETENTION_NOTE}`,
      auth: "admin",
      role: "viewer",
      data: RetentionData,
      messages: ["Books retention"],
      errors: [],
    },
    async ({ env, ok }) => ok("Books retention", await booksRetention(env.DB)),
  ),
  route(
    {
      method: "PUT",
      path: "/admin/books/retention",
      operationId: "adminSetBooksRetention",
      example: booksExamples.adminSetBooksRetention,
      tag: "Admin: orders",
      summary: "Set how long the client's books are kept",
      description: `\`{days}\`: keep that many days of books, today included, and drop the rest; \`null\` keeps everything. A dropped day is gone from every list, search, export and chart that reads the books. ${RETENTION_NOTE} Audited as \`books.retention.set\` (or \`.remove\`) on \`books:retention\`.`,
      auth: "admin",
      role: "admin",
      body: RetentionRequest,
      data: RetentionData,
      messages: ["Books retention set"],
      checks: [
        {
          when: `The body: \`days\` an integer of at least ${MIN_RETENTION_DAYS}, or null`,
          codes: ["invalid_request_body"],
        },
      ],
    },
    async ({ body, env, caller, requestId, ok }) =>
      ok("Books retention set", await setBooksRetention(env.DB, { actor: caller.actor, requestId }, body.days)),
  ),
];
