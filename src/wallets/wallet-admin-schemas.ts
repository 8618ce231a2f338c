/**
 * Requests and responses of the operator's wallet routes (src/treasury/wallet-admin-routes.ts): apart from the client's
 * schemas.ts, so that they are built only when an operator route or GET /openapi.json first needs them.
 */
import * as z from "zod";
import { Currency, CurrencyCode } from "../pricing/amount-schemas";
import { ClientIdPath } from "../kernel/primitives";
import { LedgerKindSchema } from "./wallet-schemas";
import { LEDGER_EXPORT_FORMAT, LEDGER_EXPORT_FORMAT_V1 } from "./ledger-backup";

/** A positive decimal amount, given as a string (exact) or a JSON number. */
export const AmountInput = z.union([
  z.string().regex(/^\d{1,15}(\.\d{1,8})?$/, "a decimal amount like 100 or 12.50"),
  z.number().positive().max(1e15),
]);

/** The operator's internal reason: the audit log's and the operator's ledger's, never shown to the client. */
const Reason = z
  .string()
  .min(1)
  .max(500)
  .describe("Why, for the operators and the audit log: never shown to the client (use `note` for that).");

/** What the client's own ledger and statement show beside the movement; none when absent. */
const Note = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    "Optional: a note for the client, shown beside the movement in its ledger (GET /wallets/{currency}/ledger) and statement. The `reason` never is.",
  );

export const TopUpRequest = z.strictObject({
  amount: AmountInput,
  idempotencyKey: z.string().min(1).max(128),
  reason: Reason,
  note: Note,
});
export type TopUpRequest = z.infer<typeof TopUpRequest>;

/** Which object of a wallet an entry is in: a wallet moved to another region is a new object each time. */
export const WalletPlacementView = z.object({
  generation: z.number().int().min(0).describe("0 for the wallet's first object, one more for each move."),
  region: z.string().nullable().describe("The Durable Object location hint the object was created with; null: none."),
});

export const LedgerEntryView = z.object({
  seq: z.number().int().describe("The entry's number within its wallet object (`wallet`)."),
  key: z.string(),
  kind: LedgerKindSchema,
  amount: z.number(),
  balanceAfter: z.number(),
  orderId: z.string().nullable(),
  reason: z
    .string()
    .nullable()
    .describe("The operator's internal reason (or the order's reference): never shown to the client."),
  createdAt: z.number().int(),
  note: z
    .string()
    .nullable()
    .describe("The client-facing note of an operator's posting: what the client's books show."),
  wallet: WalletPlacementView,
});

/** A signed, non-zero decimal amount: positive credits the wallet, negative debits it (never below zero). */
export const SignedAmountInput = z.union([
  z.string().regex(/^-?\d{1,15}(\.\d{1,8})?$/, "a decimal amount like 12.50 or -3"),
  z.number().min(-1e15).max(1e15),
]);

/** POST /admin/wallets/:clientId/:currency/adjustments. */
export const AdjustmentRequest = z.strictObject({
  amount: SignedAmountInput,
  idempotencyKey: z.string().min(1).max(128),
  reason: Reason,
  note: Note,
});
export type AdjustmentRequest = z.infer<typeof AdjustmentRequest>;

export const WalletPathParams = z.object({ clientId: ClientIdPath, currency: Currency.meta({ examples: ["USD"] }) });

/** A posting above its currency's approval limit, waiting for a second operator (src/treasury/approval-admin-routes.ts). */
const ActorView = z.object({
  actor: z.string().describe("`operator:<id>`, or the break-glass token's `admin:<8 hex>`."),
  name: z.string().nullable().describe("The operator's name then; null for the break-glass token."),
});

export const PostingRequestView = z.object({
  id: z.number().int().describe("The request's id, for approve and reject."),
  clientId: z.string(),
  currency: CurrencyCode,
  kind: z
    .enum(["top_up", "adjustment", "restore"])
    .describe("`restore`: a ledger restore, `amount` the balance it brings; approving it needs an admin."),
  amount: z.number().describe("As asked: signed for an adjustment."),
  reason: z.string().describe("The requester's internal reason: never shown to the client."),
  note: z.string().nullable().describe("The client-facing note the posting will carry (null: none)."),
  idempotencyKey: z.string().describe("The posting's key, fixed when it was asked for: approving posts under it."),
  status: z
    .enum(["pending", "approved", "rejected", "failed", "expired"])
    .describe(
      "`expired`: nobody decided it within 24 hours of `requestedAt`; it can no longer be approved. `failed`: approved, but the wallet refused its posting (`failure` says why): nothing was posted.",
    ),
  failure: z.string().nullable().describe("Why the wallet refused the posting of a `failed` request."),
  requestedBy: ActorView,
  requestedAt: z.number().int(),
  expiresAt: z.number().int().describe("Unix ms; a request still pending then expires."),
  decidedBy: ActorView.nullable().describe("Who approved or rejected it; null while pending or expired."),
  decidedAt: z.number().int().nullable(),
  entrySeq: z
    .number()
    .int()
    .nullable()
    .describe(
      "The ledger entry the approved posting wrote; null until it is posted (an approval cut off between its decision and its posting: approve again to finish it).",
    ),
});

/**
 * What a top-up or an adjustment answers: the entry it wrote (or first wrote, on a replay) and the balance;
 * or, above the currency's approval limit, the posting request it became (`entry` null).
 */
export const WalletPostingData = z.object({
  clientId: z.string(),
  currency: CurrencyCode,
  balance: z.number().describe("The balance after the posting; for a request waiting for approval, the balance now."),
  entry: LedgerEntryView.nullable().describe("Null when the posting waits for approval (`request`)."),
  request: PostingRequestView.nullable().describe(
    "The posting request when the amount is above the currency's approval limit: nothing is posted until a different operator approves it. Null when posted.",
  ),
  replayed: z.boolean(),
});

export const WalletBalanceData = z.object({ clientId: z.string(), currency: CurrencyCode, balance: z.number() });

export const LedgerQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "Return the entries after this position: the `next` of the previous page (for a wallet never moved, an entry's seq).",
    ),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});

export const LedgerPage = z.object({
  clientId: z.string(),
  currency: CurrencyCode,
  entries: z.array(LedgerEntryView),
  next: z.number().int().nullable().describe("Pass as `after` for the next page; null on the last page."),
});

/** A decimal as the ledger stores it: exact, as a string. */
const ExactDecimal = z.string().regex(/^-?\d{1,20}(\.\d{1,20})?$/, "a decimal like 12.5 or -3");

const ExportedEntries = z
  .array(
    z.strictObject({
      seq: z.number().int().min(1),
      key: z.string().min(1).max(300),
      kind: LedgerKindSchema,
      amount: ExactDecimal.describe("Signed: credits positive, debits negative."),
      balanceAfter: ExactDecimal,
      orderId: z.string().nullable(),
      reason: z.string().nullable(),
      createdAt: z.number().int(),
      note: z.string().nullable().optional().describe("The client-facing note (absent in a v1 export)."),
    }),
  )
  .describe("Every entry, oldest first.");

const ExportedVoids = z
  .array(
    z.strictObject({
      orderId: z.string().min(1).max(300),
      voidedAt: z.number().int(),
      reason: z.string().nullable(),
    }),
  )
  .describe(
    "Every order voided for good in this wallet: a restored wallet goes on refusing their charges. A void that credited a charge back is also an `order_void` entry.",
  );

const ExportedPlacement = z.strictObject({ generation: z.number().int().min(0), region: z.string().nullable() });

/** GET …/export's answer and POST …/restore's body: a wallet's whole ledger, exact. */
export const LedgerExportData = z.strictObject({
  format: z
    .enum([LEDGER_EXPORT_FORMAT, LEDGER_EXPORT_FORMAT_V1])
    .describe(
      "The export's format. A restore takes a v1 export (signed under a key derived from ADMIN_TOKEN) only until 2027-03-01 (docs/operations.md, Backups).",
    ),
  deployment: z
    .string()
    .max(100)
    .optional()
    .describe("The deployment the export was made in (its DEPLOYMENT var); absent in a v1 export."),
  mode: z.enum(["live", "sandbox"]).optional().describe("The mode the export was made in; absent in a v1 export."),
  clientId: z.string().min(1).max(128),
  currency: CurrencyCode,
  exportedAt: z.number().int().describe("When the export was made (ms since the epoch)."),
  wallet: ExportedPlacement.optional().describe(
    "The wallet object these entries are in (absent in exports made before wallets could move: generation 0).",
  ),
  balance: ExactDecimal.describe("The balance at export: the last entry's balanceAfter (0 when there is none)."),
  entries: ExportedEntries,
  voids: ExportedVoids,
  signature: z
    .string()
    .max(200)
    .describe(
      "This deployment's signature of the export (`v2,`: HMAC-SHA256 under a key derived from the secret LEDGER_EXPORT_KEY, over the entries, this deployment's name and its mode): a restore takes only an export this deployment produced, in this mode, unchanged.",
    ),
  previous: z
    .array(
      z.strictObject({
        wallet: ExportedPlacement,
        balance: ExactDecimal,
        entries: ExportedEntries,
        voids: ExportedVoids,
      }),
    )
    .optional()
    .describe(
      "A moved wallet's earlier objects, oldest first, each with its whole ledger (ending with the `move_out` of its balance): the history before `entries`, which start with the matching `move_in`. A restore writes only `entries` and `voids`.",
    ),
});

/** What POST …/restore answers. */
export const LedgerRestoreData = z.object({
  clientId: z.string(),
  currency: CurrencyCode,
  entries: z.number().int().describe("How many entries the wallet now holds from the export."),
  balance: z.string().describe("The wallet's balance after the restore (the balance now, for a request), exact."),
  replayed: z
    .boolean()
    .describe("True when a restore had already written exactly these entries (nothing was written now)."),
  request: PostingRequestView.nullable().describe(
    "The restore request, when the balance it brings is more than the caller may move alone: nothing is written until a second person approves it. Null when restored.",
  ),
});
