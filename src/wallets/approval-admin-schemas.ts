/** Requests and responses of dual control's operator routes (approval-admin-routes.ts). */
import * as z from "zod";
import { Currency, CurrencyCode } from "../pricing/amount-schemas";
import { ClientIdParam } from "../kernel/primitives";
import { AmountInput, LedgerEntryView, PostingRequestView } from "./wallet-admin-schemas";

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
    .enum(["pending", "approved", "rejected", "expired", "all"])
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
  balance: z.number().describe("The wallet's balance after the posting."),
  entry: LedgerEntryView.describe("The ledger entry the approval wrote (or, approved again, had written)."),
  replayed: z.boolean().describe("True when the request had already been approved: nothing more was written."),
});

export const RejectedPostingData = z.object({
  request: PostingRequestView,
  replayed: z.boolean().describe("True when the request had already been rejected: nothing more was written."),
});

export const ApprovalLimitView = z.object({
  currency: CurrencyCode,
  limit: z.number().describe("A top-up or adjustment whose amount (its absolute value) is above this waits."),
  updatedAt: z.number().int(),
});

export const ApprovalLimitsData = z.object({ limits: z.array(ApprovalLimitView) });

export const ApprovalLimitParams = z.object({ currency: Currency.meta({ examples: ["USD"] }) });

export const SetApprovalLimitRequest = z.strictObject({
  limit: AmountInput.nullable().describe(
    "The currency's limit: a positive decimal with at most its minor units. `null` removes it: only in the sandbox.",
  ),
});

export const ApprovalLimitData = z.object({
  currency: CurrencyCode,
  limit: z.number().nullable().describe("The limit now; null: none."),
});
