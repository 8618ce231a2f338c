/** Operator API: clients, their API keys and webhook secrets. */
import type * as z from "zod";
import { route, type AdminCaller, type Route } from "../http/route";
import { walletBalances } from "../wallets/wallet-moves";
import { PageQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE, pageOf } from "../kernel/paging";
import * as actions from "./client-actions";
import { clientsAfter, keysOf, requireClient } from "./client-store";
import {
  ClientDetail,
  ClientList,
  ClientParams,
  ClientRegionData,
  ClientStateData,
  CreateClientData,
  CreateClientRequest,
  IssueKeyRequest,
  IssuedKeyData,
  KeyAccessData,
  KeyAccessRequest,
  KeyParams,
  RevokedKeyData,
  SetRegionRequest,
  WebhookSecretData,
} from "./client-admin-schemas";
import { FULL_ACCESS, type KeyAccess } from "./key-access-rules";
import { clientExamples } from "./client-examples";
import { clientView, issuedView, keyView, moveView } from "./client-views";

/** A key issued, or issued with every other key of the client revoked, as answered. */
async function issueOrRotateKey(
  env: Env,
  actor: AdminCaller,
  { clientId, body, rotate }: { clientId: string; body: z.output<typeof IssueKeyRequest>; rotate: boolean },
) {
  // A rotation that names no access keeps the access of the keys it replaces (issueKey).
  const named = body.scopes !== undefined || body.allowedIps !== undefined;
  const access: KeyAccess | undefined =
    rotate && !named
      ? undefined
      : { scopes: body.scopes ?? FULL_ACCESS.scopes, allowedIps: body.allowedIps ?? FULL_ACCESS.allowedIps };
  const { key, revokedKeyIds } = await actions.issueKey(env, actor, {
    clientId,
    label: body.label ?? "",
    rotate,
    access,
  });
  return { clientId, apiKey: key.apiKey, key: issuedView(key), revokedKeyIds };
}

/**
 * This file's routes, each with its description in GET /openapi.json. Disable and enable are offboarding:
 * a disabled client's keys get 403 at once in the isolate that served the call and within
 * API_KEY_CACHE_SECONDS everywhere (the key lookup refuses them, as it does a revoked key); its orders
 * already confirmed run to their end (they need no key), its created orders expire. Enabling restores its
 * keys as they were. Either, repeated, changes nothing.
 */
export const clientRoutes: Route[] = [
  route(
    {
      method: "POST",
      path: "/admin/clients",
      operationId: "adminCreateClient",
      example: clientExamples.adminCreateClient,
      tag: "Admin: clients",
      summary: "Create a client with its first API key and webhook secret",
      description:
        "The API key and the webhook secret are in this answer only: the key is stored as a SHA-256 digest, and no route returns the secret again.",
      auth: "admin",
      role: "admin",
      body: CreateClientRequest,
      data: CreateClientData,
      messages: ["Client created"],
      errors: ["client_exists"],
    },
    /** A client, its first API key and its webhook secret, both shown only in this answer. */
    async ({ body, caller, env, ok }) => {
      const { client, key, webhookSecret } = await actions.createClient(env, caller, body);
      return ok("Client created", {
        client: clientView(client),
        apiKey: key.apiKey,
        key: issuedView(key),
        webhookSecret,
      });
    },
  ),
  route(
    {
      method: "GET",
      path: "/admin/clients",
      operationId: "adminListClients",
      example: clientExamples.adminListClients,
      tag: "Admin: clients",
      summary: "List clients by id",
      description:
        "Clients ordered by id, a page at a time: pass `next` as `after` for the following page (null on the last page).",
      auth: "admin",
      role: "viewer",
      query: PageQuery,
      data: ClientList,
      messages: ["Clients"],
      errors: [],
    },
    /** Clients by id, a page at a time. */
    async ({ query, env, ok }) => {
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const page = pageOf(await clientsAfter(env.DB, query.after ?? "", limit), limit, (row) => row.id);
      return ok("Clients", { clients: page.items.map(clientView), next: page.next });
    },
  ),
  route(
    {
      method: "GET",
      path: "/admin/clients/:clientId",
      operationId: "adminGetClient",
      example: clientExamples.adminGetClient,
      tag: "Admin: clients",
      summary: "A client, its API keys (ids, never keys) and its wallets",
      description:
        "The client, every API key it has had (key ids and labels, never the keys themselves; revoked ones with `revokedAt`) and its wallets with their balances.",
      auth: "admin",
      role: "viewer",
      params: ClientParams,
      data: ClientDetail,
      messages: ["Client"],
      errors: ["client_not_found"],
    },
    /** The client, its keys (ids only) and its wallets with balances. */
    async ({ params: { clientId }, env, ok }) => {
      const client = await requireClient(env.DB, clientId);
      const [keys, wallets] = await Promise.all([keysOf(env.DB, clientId), walletBalances(env, clientId)]);
      return ok("Client", { client: clientView(client), keys: keys.map(keyView), wallets });
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/region",
      operationId: "adminSetClientRegion",
      example: clientExamples.adminSetClientRegion,
      tag: "Admin: clients",
      summary: "Set where the client's wallets live, moving the wallets it already has",
      description:
        "Sets the client's region (a Durable Object location hint) and moves each of its wallets that lives elsewhere: the old wallet object is marked moved and its whole balance, with its open orders' holds, is transferred to a new object created in the region, as a `move_out` entry in the old wallet and a `move_in` entry in the new one under one key. Orders in flight are charged, voided or refunded exactly once (a charge that meets the old wallet goes on to the new one; a refund or void of a charge the old wallet holds is credited there and passed on). The old wallet's entries stay in the wallet's ledger. A 500 leaves the move under way: send the same request again, which finishes it once. A region already set moves nothing.",
      auth: "admin",
      role: "admin",
      params: ClientParams,
      body: SetRegionRequest,
      data: ClientRegionData,
      messages: ["Client region set"],
      errors: ["client_not_found"],
    },
    /**
     * Where the client's wallets live; the wallets it has elsewhere are moved there (client-actions.ts,
     * setClientRegion). A 500 leaves the move under way: sent again, it finishes it once.
     */
    async ({ params: { clientId }, body: { region }, caller, env, ok }) => {
      const { client, moved } = await actions.setClientRegion(env, caller, clientId, region);
      return ok("Client region set", { client: clientView(client), moved: moved.map(moveView) });
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/keys",
      operationId: "adminIssueKey",
      example: clientExamples.adminIssueKey,
      tag: "Admin: clients",
      summary: "Issue another API key (rotation without downtime: issue, deploy, revoke the old one)",
      description:
        'Adds an API key without revoking any: issue the new key, deploy it, then revoke the old one (POST .../keys/{keyId}/revoke). The key is in this answer only; only its SHA-256 is stored. `scopes` and `allowedIps` say what the key may do and from where (absent: every scope, from anywhere); a finance team\'s key is `{"scopes": ["books:read"]}`.',
      auth: "admin",
      role: "admin",
      params: ClientParams,
      body: IssueKeyRequest,
      data: IssuedKeyData,
      messages: ["API key issued"],
      errors: ["client_not_found"],
    },
    /**
     * One more key (rotate without downtime: issue, deploy, revoke the old). One operation, one name:
     * operationId adminIssueKey, audit action client.keys.issue.
     */
    async ({ params: { clientId }, body, caller, env, ok }) =>
      ok("API key issued", await issueOrRotateKey(env, caller, { clientId, body, rotate: false })),
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/keys/rotate",
      operationId: "adminRotateKeys",
      example: clientExamples.adminRotateKeys,
      tag: "Admin: clients",
      summary: "Issue a new API key and revoke every other key of the client",
      description:
        "Revoked keys stop working at once in the isolate that served this call and within API_KEY_CACHE_SECONDS (30 s) everywhere.",
      auth: "admin",
      role: "admin",
      params: ClientParams,
      body: IssueKeyRequest,
      data: IssuedKeyData,
      messages: ["API keys rotated"],
      errors: ["client_not_found"],
    },
    /** A new key, and every other key of the client revoked. */
    async ({ params: { clientId }, body, caller, env, ok }) =>
      ok("API keys rotated", await issueOrRotateKey(env, caller, { clientId, body, rotate: true })),
  ),
  route(
    {
      method: "PUT",
      path: "/admin/clients/:clientId/keys/:keyId/access",
      operationId: "adminSetKeyAccess",
      example: clientExamples.adminSetKeyAccess,
      tag: "Admin: clients",
      summary: "Set an API key's scopes and IP allow-list",
      description:
        'Replaces both the key\'s `scopes` and its `allowedIps` (send `"all"` and `null` for a key that may do everything from anywhere). The key itself stays the same, so nothing needs redeploying: the change takes effect at once in the isolate that served this call and within API_KEY_CACHE_SECONDS (30 s) everywhere, and is audited (`client.keys.access`, with the access before and after). Setting what the key already has changes nothing. A revoked key is 409 `api_key_revoked`.',
      auth: "admin",
      role: "admin",
      params: KeyParams,
      body: KeyAccessRequest,
      data: KeyAccessData,
      messages: ["API key access set", "API key access unchanged"],
      errors: ["client_not_found", "api_key_not_found", "api_key_revoked"],
    },
    /**
     * The key's scopes and allow-list, both replaced. The key stays the same (nothing to redeploy); in
     * effect at once here and within API_KEY_CACHE_SECONDS everywhere.
     */
    async ({ params: { clientId, keyId }, body, caller, env, ok }) => {
      const { key, changed } = await actions.setKeyAccess(env, caller, clientId, keyId, body);
      return ok(changed ? "API key access set" : "API key access unchanged", { clientId, key: keyView(key) });
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/keys/:keyId/revoke",
      operationId: "adminRevokeKey",
      example: clientExamples.adminRevokeKey,
      tag: "Admin: clients",
      summary: "Revoke an API key",
      description: "Effective within API_KEY_CACHE_SECONDS (30 s). Revoking a revoked key changes nothing.",
      auth: "admin",
      role: "admin",
      params: KeyParams,
      data: RevokedKeyData,
      messages: ["API key revoked", "API key already revoked"],
      errors: ["client_not_found", "api_key_not_found"],
    },
    /**
     * Takes effect at once in this isolate and within API_KEY_CACHE_SECONDS everywhere. Revoking a revoked
     * key changes nothing and answers the key as it is.
     */
    async ({ params: { clientId, keyId }, caller, env, ok }) => {
      const { key, revoked } = await actions.revokeKey(env, caller, clientId, keyId);
      return ok(revoked ? "API key revoked" : "API key already revoked", { clientId, key: keyView(key) });
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/webhook-secret/rotate",
      operationId: "adminRotateWebhookSecret",
      example: clientExamples.adminRotateWebhookSecret,
      tag: "Admin: clients",
      summary: "Replace the client's webhook signing secret",
      description:
        "Generates a new webhook signing secret for the client and answers it (the only time it is shown). Deliveries after this call are signed with the new secret; see the `webhook-signature` header of `webhooks` for how receivers verify across a rotation.",
      auth: "admin",
      role: "admin",
      params: ClientParams,
      data: WebhookSecretData,
      messages: ["Webhook secret rotated"],
      errors: ["client_not_found"],
    },
    /**
     * A new signing secret, in effect for the next delivery. The secret it replaces signs every delivery
     * alongside it for 24 h (a second `v1,` signature), so the receiver can switch without dropping an event;
     * a second rotation within those 24 h drops the oldest.
     */
    async ({ params: { clientId }, caller, env, ok }) => {
      const webhookSecret = await actions.rotateWebhookSecret(env, caller, clientId);
      return ok("Webhook secret rotated", { clientId, webhookSecret });
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/disable",
      operationId: "adminDisableClient",
      example: clientExamples.adminDisableClient,
      tag: "Admin: clients",
      summary: "Disable a client (offboarding): its API keys stop, its open orders run to their end",
      description:
        "Every API key of the client gets 403 `unauthenticated`: at once in the isolate that served this call and within API_KEY_CACHE_SECONDS (30 s) everywhere. Nothing is revoked or deleted: orders already confirmed are fulfilled as usual, created orders expire and release their codes, and webhook deliveries for the client go to the dead letters (replay them after enabling it). Disabling a disabled client changes nothing and keeps its `disabledAt`.",
      auth: "admin",
      role: "admin",
      params: ClientParams,
      data: ClientStateData,
      messages: ["Client disabled"],
      errors: ["client_not_found"],
    },
    async ({ params: { clientId }, caller, env, ok }) =>
      ok("Client disabled", { client: clientView(await actions.setClientDisabled(env, caller, clientId, true)) }),
  ),
  route(
    {
      method: "POST",
      path: "/admin/clients/:clientId/enable",
      operationId: "adminEnableClient",
      example: clientExamples.adminEnableClient,
      tag: "Admin: clients",
      summary: "Enable a disabled client again: its API keys work as before",
      description:
        "Restores the client's keys as they were when it was disabled (keys revoked meanwhile stay revoked). Enabling an enabled client changes nothing.",
      auth: "admin",
      role: "admin",
      params: ClientParams,
      data: ClientStateData,
      messages: ["Client enabled"],
      errors: ["client_not_found"],
    },
    async ({ params: { clientId }, caller, env, ok }) =>
      ok("Client enabled", { client: clientView(await actions.setClientDisabled(env, caller, clientId, false)) }),
  ),
];
