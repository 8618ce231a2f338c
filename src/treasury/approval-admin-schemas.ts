/** Requests and responses of dual control's operator routes (approval-admin-routes.ts). */
import * as z from "zod";
import { Currency, CurrencyCode } from "../pricing/amount-schemas";
import { ClientIdParam } from "../kernel/primitives";
import { AmountInput, LedgerEntryView, PostingRequestView } from "../wallets/wallet-admin-schemas";

export const PostingRequestParams = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .meta({ examples: [12] }),
});

export const PostingRequestsQuery = z.object({
  clientId: ClientIdParam.optional().describe("Only this client's requests."),
  currency: Currency.optional().describe("Only requests in this currency."),
  status: z
    .enum(["pending", "approved", "rejected", "failed", "expired", "all"])
    .optional()
    .describe("Default `pending`: the requests waiting for an operator."),
  after: z.coerce.number().int().min(0).optional().describe("Cursor: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});

export const PostingRequestsData = z.object({
  requests: z.array(PostingRequestView),
  next: z.number().int().nullable().describe("Pass as `after` for the next page; null on the last page."),
});

export const ApprovedPostingData = z.object({
  request: PostingRequestView,
  balance: z.number().describe("The wallet's balance after the posting (or the restore)."),
  entry: LedgerEntryView.nullable().describe(
    "The ledger entry the approval wrote (or, approved again, had written); null for a restore, which wrote the export's entries.",
  ),
  replayed: z.boolean().describe("True when the request had already been approved: nothing more was written."),
});

export const RejectedPostingData = z.object({
  request: PostingRequestView,
  replayed: z.boolean().describe("True when the request had already been rejected: nothing more was written."),
});

export const ApprovalLimitView = z.object({
  currency: CurrencyCode,
  limit: z
    .number()
    .describe("What one credential may move alone in this currency in any 24 hours (top-ups, adjustments, restores)."),
  left: z
    .number()
    .describe("What the caller may still move alone in this currency now: the limit less its last 24 hours."),
  updatedAt: z.number().int(),
});

export const ApprovalLimitsData = z.object({
  limits: z.array(ApprovalLimitView),
  withoutLimit: z
    .enum(["waits", "alone"])
    .describe(
      "What a posting in a currency not listed does: `waits` (live: it waits for a second person, whatever its amount) or `alone` (the sandbox: it posts).",
    ),
});

export const ApprovalLimitParams = z.object({ currency: Currency.meta({ examples: ["USD"] }) });

export const SetApprovalLimitRequest = z.strictObject({
  limit: AmountInput.nullable().describe(
    "The currency's limit: a positive decimal with at most its minor units. `null` removes it (in live, a currency without a limit makes every posting wait; in the sandbox, none waits).",
  ),
});

const ActorView = z.object({
  actor: z.string().describe("`operator:<id>`, or the break-glass token's `admin:<8 hex>`."),
  name: z.string().nullable().describe("The operator's name then; null for the break-glass token."),
});

export const LimitRequestView = z.object({
  id: z.number().int().describe("The request's id, for approve and reject."),
  currency: CurrencyCode,
  limit: z.number().nullable().describe("The limit asked for; null: none."),
  previous: z.number().nullable().describe("The limit when it was asked for; null: none."),
  status: z
    .enum(["pending", "approved", "rejected", "expired"])
    .describe("`expired`: no second admin decided it within 24 hours of `requestedAt`."),
  requestedBy: ActorView,
  requestedAt: z.number().int(),
  expiresAt: z.number().int(),
  decidedBy: ActorView.nullable(),
  decidedAt: z.number().int().nullable(),
});

export const ApprovalLimitData = z.object({
  currency: CurrencyCode,
  limit: z.number().nullable().describe("The limit now; null: none."),
  request: LimitRequestView.nullable().describe(
    "Raising or removing a limit (in live, setting a currency's first) waits for a second admin: the limit request, the limit unchanged until it is approved. Null when the change took effect.",
  ),
  replayed: z
    .boolean()
    .describe("True when nothing new was asked for: the limit was already so, or the same request waits."),
});

export const LimitRequestParams = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .meta({ examples: [3] }),
});

export const LimitRequestsQuery = z.object({
  status: z
    .enum(["pending", "approved", "rejected", "expired", "all"])
    .optional()
    .describe("Default `pending`: the requests waiting for a second admin."),
  after: z.coerce.number().int().min(0).optional().describe("Cursor: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});

export const LimitRequestsData = z.object({
  requests: z.array(LimitRequestView),
  next: z.number().int().nullable().describe("Pass as `after` for the next page; null on the last page."),
});

export const DecidedLimitData = z.object({
  request: LimitRequestView,
  limit: z.number().nullable().describe("The currency's limit now; null: none."),
  replayed: z.boolean().describe("True when the request had already been so decided: nothing more was written."),
});
