/**
 * Examples of the operator client routes in GET /openapi.json, derived from one fixture: a client created
 * with its first key, a second key issued (and later revoked), the first rotated away, each shown as the
 * routes show it (client-views.ts). test/openapi/examples.test.ts checks that each has exactly the shape
 * of a real answer.
 */
import type * as z from "zod";
import type { RouteExample } from "../http/route";
import { walletExamples } from "../wallets/wallet-examples";
import type { CreateClientRequest, IssueKeyRequest, KeyAccessRequest } from "./client-admin-schemas";
import type { ClientRow, KeyRow } from "./client-store";
import { clientView, issuedView, keyView, moveView } from "./client-views";
import { FULL_ACCESS, storedAccess, type KeyAccess } from "./key-access-rules";

const create = {
  id: "acme",
  name: "Acme Gifts Ltd",
  keyLabel: "production",
  region: "apac",
} satisfies z.input<typeof CreateClientRequest>;
const client: ClientRow = {
  id: create.id,
  name: create.name,
  created_at: 1795345078741,
  disabled_at: null,
  region: create.region,
};

/** A key as issued: the answer's only sight of the key itself, and what is kept of it. */
interface IssuedKey {
  apiKey: string;
  keyId: string;
  label: string;
  createdAt: number;
  access: KeyAccess;
}

const production: IssuedKey = {
  apiKey: "sk_live_5c796c9b6a261eee63fa8ebd68725f73d65ceddb51167bc16bd0f5eaab879aeb",
  keyId: "key_328bd1c026147932",
  label: create.keyLabel,
  createdAt: client.created_at,
  access: FULL_ACCESS,
};
const issue = {
  label: "finance",
  scopes: ["books:read"],
  allowedIps: ["203.0.113.7", "198.51.100.0/24"],
} satisfies z.input<typeof IssueKeyRequest>;
const finance: IssuedKey = {
  apiKey: "sk_live_109692b5e4a06ac742cbe640a2c7e4c544f34815cf8d932dba352fcce64849fd",
  keyId: "key_46eb07dbfccedbcd",
  label: issue.label,
  createdAt: 1795345078756,
  access: { scopes: issue.scopes, allowedIps: issue.allowedIps },
};
const rotate = { label: "production-2026-12" } satisfies z.input<typeof IssueKeyRequest>;
const rotated: IssuedKey = {
  apiKey: "sk_live_b12d86d115f2c05c1051d61e274b77daea256db63223d49e831ffa9698aead96",
  keyId: "key_0d71c46d5fc82dd7",
  label: rotate.label,
  createdAt: 1795345078797,
  access: FULL_ACCESS,
};
const FINANCE_REVOKED_AT = 1795345078775;
const DISABLED_AT = 1795345079120;

/** A key's row as stored: the first 16 hex digits of its digest (all its id shows), its label and access. */
function keyRow(key: IssuedKey, revokedAt: number | null, access = key.access): KeyRow {
  const stored = storedAccess(access);
  return {
    key_hash: key.keyId.slice("key_".length),
    label: key.label,
    created_at: key.createdAt,
    revoked_at: revokedAt,
    scopes: stored.scopes,
    allowed_ips: stored.allowedIps,
  };
}

/** The key as issued, with the key itself. */
const issued = (key: IssuedKey) => ({ apiKey: key.apiKey, key: issuedView(key) });

/** The access set on the finance key (stored, and shown, in the scopes' own order). */
const access = { scopes: ["books:read", "orders:read"], allowedIps: ["198.51.100.0/24"] } satisfies z.input<
  typeof KeyAccessRequest
>;

export const clientExamples = {
  adminCreateClient: {
    request: create,
    data: {
      client: clientView(client),
      ...issued(production),
      webhookSecret: "whsec_f0466f7f7c5c2f1e5553535b93cb4abd9e3cc642a4eaea80ab5fe199fca30fb0",
    },
  },
  adminListClients: { data: { clients: [clientView(client)], next: client.id } },
  adminGetClient: {
    data: {
      client: clientView(client),
      keys: [
        keyView(keyRow(production, rotated.createdAt)),
        keyView(keyRow(finance, FINANCE_REVOKED_AT)),
        keyView(keyRow(rotated, null)),
      ],
      wallets: [{ currency: "USD", balance: walletExamples.adminGetWallet.data.balance }],
    },
  },
  adminIssueKey: { request: issue, data: { clientId: client.id, ...issued(finance), revokedKeyIds: [] } },
  adminSetKeyAccess: {
    request: access,
    data: { clientId: client.id, key: keyView(keyRow(finance, null, access)) },
  },
  adminRevokeKey: { data: { clientId: client.id, key: keyView(keyRow(finance, FINANCE_REVOKED_AT)) } },
  adminRotateKeys: {
    request: rotate,
    data: { clientId: client.id, ...issued(rotated), revokedKeyIds: [production.keyId] },
  },
  adminRotateWebhookSecret: {
    data: {
      clientId: client.id,
      webhookSecret: "whsec_6d74919cbfaf326abf4703347de58e3d75dbb3132a1c08428a87dacc25d941b5",
    },
  },
  adminDisableClient: { data: { client: clientView({ ...client, disabled_at: DISABLED_AT }) } },
  adminEnableClient: { data: { client: clientView(client) } },
  adminSetClientRegion: {
    request: { region: create.region },
    data: {
      client: clientView(client),
      // The client's one wallet, made before it had a region, moved to the region with its balance then.
      moved: [
        moveView({
          currency: "USD",
          from: { generation: 0, region: null },
          to: { generation: 1, region: create.region },
          amount: "445.65",
        }),
      ],
    },
  },
} satisfies Record<string, RouteExample>;
