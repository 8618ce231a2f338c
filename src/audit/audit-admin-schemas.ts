/** The audit log as GET /admin/audit shows it. */
import * as z from "zod";
import { PageQuery } from "../http/params";

export const AuditQuery = PageQuery.extend({
  target: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe("Only entries about this target, e.g. client:acme or product:SKU-1."),
});

export const AuditEntryView = z.object({
  id: z.number().int(),
  at: z.number().int(),
  actor: z
    .string()
    .describe(
      "operator:<id> for a named operator, admin:<8 hex of its SHA-256> for the break-glass ADMIN_TOKEN, system:<name> for the service itself.",
    ),
  actorName: z
    .string()
    .nullable()
    .describe("The operator's name when the change was made; null for the break-glass token and the service."),
  action: z.string(),
  target: z.string(),
  requestId: z.string(),
  details: z.record(z.string(), z.unknown()),
});

export const AuditPage = z.object({ entries: z.array(AuditEntryView), next: z.string().nullable() });
