/**
 * What an operator does to a client, whichever way they asked (the /admin routes in client-admin-routes.ts, or
 * the console's client pages): create it with its first key and webhook secret, issue, rotate and revoke
 * keys, rotate the webhook secret, disable and enable it, set its region (moving its wallets). Each change is written in one D1 batch with its
 * audit row, under the actor it is given. New secrets are answered once and never stored in clear.
 */
import { auditStatement, auditStatementIfChanged } from "../audit/audit-store";
import { forgetCachedKeys } from "../http/auth";
import { fail } from "../kernel/failures";
import { randomHex } from "../kernel/crypto";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { serviceMode } from "../kernel/service-mode";
import { WALLET_MOVE_SEAMS } from "../wallets/seams";
import { finishMoves, type MoveSeams, type WalletMove } from "../wallets/wallet-moves";
import { regionOf, startMovesStatement, walletCurrencies, type Region } from "../wallets/wallet-registry-store";
import { keyIdOf, newApiKey, newWebhookSecret } from "./client-secrets";
import { accessOf, FULL_ACCESS, storedAccess, type KeyAccess } from "./key-access-rules";
import {
  findKey,
  insertClientStatement,
  insertKeyStatement,
  requireClient,
  revokeAllKeysStatement,
  revokeKeyStatement,
  rotateWebhookSecretStatement,
  keysOf,
  setKeyAccessStatement,
  setClientDisabledStatement,
  setClientRegionStatement,
  type ClientRow,
  type KeyRow,
} from "./client-store";

/** Who a change's audit row names, and the request it came in: as the audit log takes it. */
export type ClientActor = Parameters<typeof auditStatement>[1];

export interface IssuedKey {
  apiKey: string;
  keyId: string;
  label: string;
  createdAt: number;
  access: KeyAccess;
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed|SQLITE_CONSTRAINT/i.test(error.message);
}

/** A client, its first API key and its webhook secret (409 client_exists when the id is taken). */
export async function createClient(
  env: Env,
  actor: ClientActor,
  request: { id?: string; name: string; keyLabel?: string; region?: Region | null },
): Promise<{ client: ClientRow; key: IssuedKey; webhookSecret: string }> {
  const db = env.DB;
  const id = request.id ?? `cli_${randomHex(12)}`;
  const key = await newApiKey(serviceMode(env));
  const webhookSecret = newWebhookSecret();
  const now = Date.now();
  const label = request.keyLabel ?? "";
  const region = request.region ?? null;
  try {
    await db.batch([
      insertClientStatement(db, { id, name: request.name, webhookSecret, region, now }),
      insertKeyStatement(db, {
        keyHash: key.keyHash,
        clientId: id,
        label,
        now,
        access: storedAccess(FULL_ACCESS),
      }),
      auditStatement(db, actor, "client.create", `client:${id}`, {
        name: request.name,
        keyId: key.keyId,
        keyLabel: label,
        region,
      }),
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) fail("client_exists", { clientId: id });
    throw error;
  }
  return {
    client: { id, name: request.name, created_at: now, disabled_at: null, region },
    key: { apiKey: key.apiKey, keyId: key.keyId, label, createdAt: now, access: FULL_ACCESS },
    webhookSecret,
  };
}

/**
 * One more key for the client, or (rotate) a new key with every other key of the client revoked. The key
 * gets `access` (its scopes and allow-list, validated by the caller's schema); the audit row names them.
 * Without it, a new key gets all scopes from anywhere, and a rotation keeps the access its client's live
 * keys share: rotating a leaked key that had an allow-list must not hand out one that works from anywhere.
 * A rotation over live keys of different access must name the new key's (400).
 */
export async function issueKey(
  env: Env,
  actor: ClientActor,
  { clientId, label, rotate, access }: { clientId: string; label: string; rotate: boolean; access?: KeyAccess },
): Promise<{ key: IssuedKey; revokedKeyIds: string[] }> {
  const db = env.DB;
  await requireClient(db, clientId);
  const stored =
    access !== undefined ? storedAccess(access) : rotate ? await sharedAccess(db, clientId) : storedAccess(FULL_ACCESS);
  const key = await newApiKey(serviceMode(env));
  const now = Date.now();
  const statements: D1PreparedStatement[] = [];
  // Revoke first, then insert: the new key is never among the revoked ones.
  if (rotate) statements.push(revokeAllKeysStatement(db, clientId, now));
  statements.push(insertKeyStatement(db, { keyHash: key.keyHash, clientId, label, now, access: stored }));
  const results = await db.batch([
    ...statements,
    auditStatement(db, actor, rotate ? "client.keys.rotate" : "client.keys.issue", `client:${clientId}`, {
      keyId: key.keyId,
      label,
      ...accessOf({ scopes: stored.scopes, allowed_ips: stored.allowedIps }),
    }),
  ]);
  const revokedKeyIds = rotate
    ? (results[0]!.results as { key_hash: string }[]).map((row) => keyIdOf(row.key_hash))
    : [];
  // Other isolates keep a revoked key for at most API_KEY_CACHE_SECONDS; this one forgets it now.
  if (rotate) forgetCachedKeys();
  const shown = accessOf({ scopes: stored.scopes, allowed_ips: stored.allowedIps });
  return { key: { apiKey: key.apiKey, keyId: key.keyId, label, createdAt: now, access: shown }, revokedKeyIds };
}

/**
 * The access a rotation gives its new key when it names none: the one every live key of the client has
 * (all scopes from anywhere when it has none, as a first key). Keys of different access leave no one
 * answer, so the operator must name it.
 */
async function sharedAccess(db: D1Database, clientId: string): Promise<{ scopes: string; allowedIps: string | null }> {
  const live = (await keysOf(db, clientId)).filter((row) => row.revoked_at === null);
  const kinds = new Set(live.map((row) => JSON.stringify([row.scopes, row.allowed_ips])));
  if (kinds.size > 1)
    fail("invalid_request_body", {
      reason: "the client's live keys have different scopes or allow-lists: name the new key's scopes and allowedIps",
    });
  const first = live[0];
  return first === undefined ? storedAccess(FULL_ACCESS) : { scopes: first.scopes, allowedIps: first.allowed_ips };
}

/** How often setKeyAccess reads the key again when another write changed it between its read and its write. */
const SET_ACCESS_ATTEMPTS = 3;

/**
 * Replaces a live key's scopes and allow-list (404 api_key_not_found, 409 api_key_revoked), audited with
 * both before and after. Takes effect at once in this isolate and within API_KEY_CACHE_SECONDS everywhere,
 * as a revocation does; the key itself is unchanged, so nothing needs redeploying. Setting what the key
 * already has changes nothing and writes no audit row. Answers the key as it is now and whether it changed.
 */
export async function setKeyAccess(
  env: Env,
  actor: ClientActor,
  clientId: string,
  keyId: string,
  access: KeyAccess,
): Promise<{ key: KeyRow; changed: boolean }> {
  const db = env.DB;
  await requireClient(db, clientId);
  const prefix = keyId.slice("key_".length);
  const stored = storedAccess(access);
  // The write holds only if the key still has what was read, so the audit's `before` is what it really had;
  // a change that lands in between is read again and built on (an operator's last word wins, audited).
  for (let attempt = 0; attempt < SET_ACCESS_ATTEMPTS; attempt += 1) {
    const existing = await findKey(db, clientId, prefix);
    if (existing === null) fail("api_key_not_found", { clientId, keyId });
    if (existing.revoked_at !== null) fail("api_key_revoked", { clientId, keyId });
    if (stored.scopes === existing.scopes && stored.allowedIps === existing.allowed_ips)
      return { key: existing, changed: false };
    const [updated] = await db.batch([
      setKeyAccessStatement(db, existing, stored),
      // Only when the key changed: a write that lost a race leaves no row claiming it happened.
      auditStatementIfChanged(db, actor, "client.keys.access", `client:${clientId}`, {
        keyId,
        before: accessOf(existing),
        after: accessOf({ scopes: stored.scopes, allowed_ips: stored.allowedIps }),
      }),
    ]);
    if (updated!.results.length === 0) continue;
    forgetCachedKeys();
    return { key: (await findKey(db, clientId, prefix))!, changed: true };
  }
  throw new Error(`the access of ${keyId} kept changing under ${SET_ACCESS_ATTEMPTS} attempts to set it`);
}

/**
 * Revokes one key (404 api_key_not_found). Takes effect at once in this isolate and within
 * API_KEY_CACHE_SECONDS everywhere. Revoking a revoked key changes nothing; answers the key as it is now
 * and whether this call revoked it.
 */
export async function revokeKey(
  env: Env,
  actor: ClientActor,
  clientId: string,
  keyId: string,
): Promise<{ key: KeyRow; revoked: boolean }> {
  const db = env.DB;
  await requireClient(db, clientId);
  const prefix = keyId.slice("key_".length);
  const existing = await findKey(db, clientId, prefix);
  if (existing === null) fail("api_key_not_found", { clientId, keyId });
  if (existing.revoked_at === null) {
    await db.batch([
      revokeKeyStatement(db, existing.key_hash, Date.now()),
      auditStatement(db, actor, "client.keys.revoke", `client:${clientId}`, { keyId }),
    ]);
    forgetCachedKeys();
  }
  return { key: (await findKey(db, clientId, prefix))!, revoked: existing.revoked_at === null };
}

/**
 * A new webhook signing secret, in effect for the next delivery; the one it replaces signs alongside it
 * for 24 h (a second rotation within those 24 h drops the oldest).
 */
export async function rotateWebhookSecret(env: Env, actor: ClientActor, clientId: string): Promise<string> {
  const db = env.DB;
  await requireClient(db, clientId);
  const webhookSecret = newWebhookSecret();
  await db.batch([
    rotateWebhookSecretStatement(db, clientId, webhookSecret, Date.now()),
    auditStatement(db, actor, "client.webhook_secret.rotate", `client:${clientId}`, {}),
  ]);
  return webhookSecret;
}

/**
 * Disables the client (its keys get 403 at once here, within API_KEY_CACHE_SECONDS everywhere; its
 * confirmed orders run to their end) or enables it again. Repeated, changes nothing. Answers the client now.
 */
export async function setClientDisabled(
  env: Env,
  actor: ClientActor,
  clientId: string,
  disable: boolean,
): Promise<ClientRow> {
  const db = env.DB;
  const before = await requireClient(db, clientId);
  if ((before.disabled_at !== null) !== disable) {
    await db.batch([
      setClientDisabledStatement(db, clientId, disable ? Date.now() : null),
      auditStatement(db, actor, disable ? "client.disable" : "client.enable", `client:${clientId}`, {}),
    ]);
    forgetCachedKeys();
  }
  return requireClient(db, clientId);
}

/** A move's steps, each through its fault seam (wallets/seams.ts). */
const MOVE_SEAMS: MoveSeams = {
  moveOut: (_step, run) => io(WALLET_MOVE_SEAMS.moveOut, run),
  moveIn: (_step, run) => io(WALLET_MOVE_SEAMS.moveIn, run),
  register: (_step, run) => io(WALLET_MOVE_SEAMS.register, run),
};

/**
 * Where the client's wallets live. The client's region is set and every wallet of it elsewhere is moved
 * there (wallets/wallet-moves.ts), in the same D1 batch that records the moves under way, so a wallet
 * registered later is created there and one registered before is moved. A move left unfinished by an
 * earlier request is finished first. Each step is idempotent: a 500 is safe to send again, and sending it
 * again finishes the move exactly once; a region already set moves nothing. Answers the client now and
 * the moves this call finished.
 */
export async function setClientRegion(
  env: Env,
  actor: ClientActor,
  clientId: string,
  region: Region,
): Promise<{ client: ClientRow; moved: WalletMove[] }> {
  const db = env.DB;
  const before = await requireClient(db, clientId);
  let moved: WalletMove[];
  try {
    const finished = await finishMoves(env, clientId, MOVE_SEAMS);
    const elsewhere = (await walletCurrencies(db, clientId))
      .filter((wallet) => wallet.region !== region)
      .map((wallet) => wallet.currency);
    if (regionOf(before.region) !== region || elsewhere.length > 0) {
      await io(WALLET_MOVE_SEAMS.start, () =>
        db.batch([
          setClientRegionStatement(db, clientId, region),
          startMovesStatement(db, clientId, region),
          auditStatement(db, actor, "client.region", `client:${clientId}`, {
            region,
            from: regionOf(before.region),
            wallets: elsewhere,
          }),
        ]),
      );
    }
    moved = [...finished, ...(await finishMoves(env, clientId, MOVE_SEAMS))];
  } catch (error) {
    logFailure(error, { step: "client.region", requestId: actor.requestId, clientId });
    fail("server_error", { reason: "the move may be under way: send the same request again to finish it" });
  }
  return { client: await requireClient(db, clientId), moved };
}
