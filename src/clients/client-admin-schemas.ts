/**
 * Requests and responses of the operator API for clients and their API keys. Requests are strict objects: an unknown field is
 * a 400, so that a typo ("quote" for "quotes") is refused instead of silently ignored.
 */
import * as z from "zod";
import { ClientIdParam, ClientIdPath } from "../kernel/primitives";
import { WalletView } from "../wallets/wallet-schemas";
import { WalletPlacementView } from "../wallets/wallet-admin-schemas";
import { REGIONS } from "../wallets/wallet-registry-store";
import { ALL_SCOPES, MAX_ALLOWED_IPS, SCOPES } from "../kernel/key-access";
import { allowListProblem, scopesProblem } from "./key-access-rules";

const Label = z.string().max(100);

export const ClientParams = z.object({ clientId: ClientIdPath });
export const KeyParams = z.object({
  clientId: ClientIdPath,
  keyId: z
    .string()
    .regex(/^key_[0-9a-f]{16}$/, "a key id like key_0123456789abcdef")
    .meta({ examples: ["key_328bd1c026147932"] }),
});

export const CreateClientRequest = z.strictObject({
  id: ClientIdParam.optional().describe("Chosen by the operator; generated (cli_...) when absent."),
  name: z.string().min(1).max(200),
  keyLabel: Label.optional().describe("Label of the first API key."),
  region: z
    .enum(REGIONS)
    .optional()
    .describe(
      "Where the client's wallets live: the Durable Object location hint their objects are created with, best the one nearest the client's backend. Absent: no hint (a wallet's object is created near its first use).",
    ),
});

export const ClientView = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  disabledAt: z.number().int().nullable(),
  region: z
    .enum(REGIONS)
    .nullable()
    .describe("Where the client's new wallets are created (a Durable Object location hint); null: no hint."),
});

/** A key's scopes as given and shown: `all` (every scope, those added later too), or a list of them. */
const Scopes = z
  .union([
    z.literal(ALL_SCOPES),
    z.array(z.enum(SCOPES)).superRefine((scopes, context) => {
      const problem = scopesProblem(scopes);
      if (problem !== null) context.addIssue({ code: "custom", message: problem });
    }),
  ])
  .describe(
    "`all` (every scope, and any added later), or the scopes the key holds: `orders:write` (create and confirm), `orders:read` (get and list orders), `books:read` (wallet balances, ledger, statement). A route needing a scope the key lacks answers 403 `insufficient_scope`; see docs/api.md, Keys and scopes.",
  );

/** A key's IP allow-list as given and shown: null for none, or addresses and CIDR ranges. */
const AllowedIps = z
  .array(z.string().max(64))
  .max(MAX_ALLOWED_IPS)
  .superRefine((entries, context) => {
    const problem = allowListProblem(entries);
    if (problem !== null)
      context.addIssue({
        code: "custom",
        message: problem.reason,
        ...(problem.index !== undefined ? { path: [problem.index] } : {}),
      });
  })
  .nullable()
  .describe(
    `null: the key works from any address. Else 1 to ${MAX_ALLOWED_IPS} IPv4 or IPv6 addresses and CIDR ranges (\`203.0.113.7\`, \`198.51.100.0/24\`, \`2001:db8::/32\`), each once: a request whose CF-Connecting-IP is in none of them, or that has none, answers 403 \`ip_not_allowed\`.`,
  );

export const ApiKeyView = z.object({
  keyId: z
    .string()
    .describe("key_ and the first 16 hex digits of the key's SHA-256: names a key without revealing it."),
  label: z.string(),
  createdAt: z.number().int(),
  revokedAt: z.number().int().nullable(),
  scopes: Scopes,
  allowedIps: AllowedIps,
});

export const CreateClientData = z.object({
  client: ClientView,
  apiKey: z
    .string()
    .describe("sk_live_... in live, sk_test_... in the sandbox: shown once, only its SHA-256 is stored."),
  key: ApiKeyView,
  webhookSecret: z
    .string()
    .describe(
      "whsec_...: the client's Standard Webhooks signing secret (see `webhook-signature`). Shown once; the API never returns it again.",
    ),
});

/** What disabling or enabling a client answers: the client as it is now. */
export const ClientStateData = z.object({ client: ClientView });

export const ClientList = z.object({ clients: z.array(ClientView), next: z.string().nullable() });

export const ClientDetail = z.object({ client: ClientView, keys: z.array(ApiKeyView), wallets: z.array(WalletView) });

/** POST /admin/clients/:clientId/region. */
export const SetRegionRequest = z.strictObject({
  region: z
    .enum(REGIONS)
    .describe(
      "The Durable Object location hint the client's wallets are to live at: its wallets elsewhere are moved there, and new ones are created there.",
    ),
});

/** What setting a client's region answers: the client, and each wallet this request moved (or finished moving). */
export const ClientRegionData = z.object({
  client: ClientView,
  moved: z
    .array(
      z.object({
        currency: z.string(),
        from: WalletPlacementView.describe(
          "The wallet object the money left (it stays, read-only, in the wallet's ledger).",
        ),
        to: WalletPlacementView.describe("The wallet object it is in now."),
        amount: z.number().describe("The balance transferred, as the `move_out` and `move_in` entries record it."),
      }),
    )
    .describe("Empty when every wallet was already there."),
});

export const IssueKeyRequest = z.strictObject({
  label: Label.optional(),
  scopes: Scopes.optional().describe(
    "The key's scopes; absent: `all`, as every key issued before scopes. A rotation naming neither field keeps the access its client's live keys share (400 when they differ).",
  ),
  allowedIps: AllowedIps.optional().describe(
    "The key's IP allow-list; null: none (any address); absent: none, or on a rotation naming neither field, the live keys' shared one.",
  ),
});

/** PUT /admin/clients/:clientId/keys/:keyId/access: the key's scopes and allow-list, both replaced. */
export const KeyAccessRequest = z.strictObject({ scopes: Scopes, allowedIps: AllowedIps });

export const IssuedKeyData = z.object({
  clientId: z.string(),
  apiKey: z.string().describe("sk_live_... in live, sk_test_... in the sandbox: shown once."),
  key: ApiKeyView,
  revokedKeyIds: z.array(z.string()).describe("Keys revoked by a rotation (empty when a key is only added)."),
});

export const RevokedKeyData = z.object({ clientId: z.string(), key: ApiKeyView });

export const KeyAccessData = z.object({ clientId: z.string(), key: ApiKeyView });

export const WebhookSecretData = z.object({
  clientId: z.string(),
  webhookSecret: z.string().describe("The new secret; deliveries from now on are signed with it."),
});
