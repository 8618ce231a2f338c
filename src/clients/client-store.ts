/** SQL on the clients and api_keys tables: the operator API's, the key lookup of authentication, and the statements other domains batch. */
import { fail } from "../kernel/failures";
import { rowsToFetch } from "../kernel/paging";
import { readNoOlderThan, type DatedAnswer } from "../kernel/replica-reads";

export interface ClientRow {
  id: string;
  name: string;
  created_at: number;
  disabled_at: number | null;
  /** Where the client's new wallet objects are created (a Durable Object location hint), or null. */
  region: string | null;
}

export interface KeyRow {
  key_hash: string;
  label: string;
  created_at: number;
  revoked_at: number | null;
  /** `all`, or the key's scopes separated by spaces (src/kernel/key-access.ts). */
  scopes: string;
  /** The key's IP allow-list as a JSON array, or null for none. */
  allowed_ips: string | null;
}

const CLIENT_COLUMNS = `id, name, created_at, disabled_at, region`;
const KEY_COLUMNS = `key_hash, label, created_at, revoked_at, scopes, allowed_ips`;

/** The client's row (rows: ClientRow, none when it does not exist): a statement for the caller's batch. */
export function clientStatement(db: D1Database, clientId: string): D1PreparedStatement {
  return db.prepare(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE id = ?1`).bind(clientId);
}

export function findClient(db: D1Database, clientId: string): Promise<ClientRow | null> {
  return clientStatement(db, clientId).first<ClientRow>();
}

/** The client row, or 404 client_not_found. */
export async function requireClient(db: D1Database, clientId: string): Promise<ClientRow> {
  const row = await findClient(db, clientId);
  if (row === null) fail("client_not_found", { clientId });
  return row;
}

/** Clients by id after `after`, one more than `limit` (see src/kernel/paging.ts). */
export async function clientsAfter(db: D1Database, after: string, limit: number): Promise<ClientRow[]> {
  const { results } = await db
    .prepare(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE id > ?1 ORDER BY id LIMIT ?2`)
    .bind(after, rowsToFetch(limit))
    .all<ClientRow>();
  return results;
}

export function insertClientStatement(
  db: D1Database,
  client: { id: string; name: string; webhookSecret: string; region: string | null; now: number },
): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO clients (id, name, webhook_secret, created_at, region) VALUES (?1, ?2, ?3, ?4, ?5)`)
    .bind(client.id, client.name, client.webhookSecret, client.now, client.region);
}

/**
 * Disables the client (keeps the first time it was disabled) or enables it again. Its keys are neither
 * revoked nor changed: the key lookup (clientOfKey) refuses every key of a disabled client, so enabling
 * it restores them as they were.
 */
export function setClientDisabledStatement(
  db: D1Database,
  clientId: string,
  disabledAt: number | null,
): D1PreparedStatement {
  return disabledAt === null
    ? db.prepare(`UPDATE clients SET disabled_at = NULL WHERE id = ?1`).bind(clientId)
    : db.prepare(`UPDATE clients SET disabled_at = COALESCE(disabled_at, ?2) WHERE id = ?1`).bind(clientId, disabledAt);
}

/** Where the client's wallets are to live (a Durable Object location hint). */
export function setClientRegionStatement(db: D1Database, clientId: string, region: string): D1PreparedStatement {
  return db.prepare(`UPDATE clients SET region = ?2 WHERE id = ?1`).bind(clientId, region);
}

/** A new webhook secret for the client; the one it replaces is kept as the previous secret, with the time. */
export function rotateWebhookSecretStatement(
  db: D1Database,
  clientId: string,
  webhookSecret: string,
  now: number,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE clients SET previous_webhook_secret = webhook_secret, webhook_secret_rotated_at = ?3, webhook_secret = ?2 WHERE id = ?1`,
    )
    .bind(clientId, webhookSecret, now);
}

/** A client's webhook secrets as stored (see src/clients/client-secrets.ts for their form). */
export interface WebhookSecretRow {
  id: string;
  webhook_secret: string;
  previous_webhook_secret: string | null;
  webhook_secret_rotated_at: number | null;
  disabled_at: number | null;
}

/** The webhook secrets of these clients (rows: WebhookSecretRow; a client that does not exist has none). */
export function webhookSecretsStatement(db: D1Database, clientIds: readonly string[]): D1PreparedStatement {
  return db
    .prepare(
      `SELECT id, webhook_secret, previous_webhook_secret, webhook_secret_rotated_at, disabled_at FROM clients
        WHERE id IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(clientIds));
}

/** What a key may do and from where, as stored: `scopes` (`all` or a list), `allowedIps` (JSON, or null). */
export interface StoredAccess {
  scopes: string;
  allowedIps: string | null;
}

export function insertKeyStatement(
  db: D1Database,
  key: { keyHash: string; clientId: string; label: string; now: number; access: StoredAccess },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO api_keys (key_hash, client_id, label, created_at, scopes, allowed_ips) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
    )
    .bind(key.keyHash, key.clientId, key.label, key.now, key.access.scopes, key.access.allowedIps);
}

/**
 * Sets a live key's scopes and allow-list if it still has those it was read with (`was`); its results name
 * the key when it changed (RETURNING key_hash), none when the key was revoked or changed since.
 */
export function setKeyAccessStatement(
  db: D1Database,
  was: Pick<KeyRow, "key_hash" | "scopes" | "allowed_ips">,
  access: StoredAccess,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE api_keys SET scopes = ?2, allowed_ips = ?3
        WHERE key_hash = ?1 AND revoked_at IS NULL AND scopes = ?4 AND allowed_ips IS ?5 RETURNING key_hash`,
    )
    .bind(was.key_hash, access.scopes, access.allowedIps, was.scopes, was.allowed_ips);
}

/** Revokes every live key of the client; its results are the revoked keys' hashes. */
export function revokeAllKeysStatement(db: D1Database, clientId: string, now: number): D1PreparedStatement {
  return db
    .prepare(`UPDATE api_keys SET revoked_at = ?2 WHERE client_id = ?1 AND revoked_at IS NULL RETURNING key_hash`)
    .bind(clientId, now);
}

export function revokeKeyStatement(db: D1Database, keyHash: string, now: number): D1PreparedStatement {
  return db
    .prepare(`UPDATE api_keys SET revoked_at = ?2 WHERE key_hash = ?1 AND revoked_at IS NULL`)
    .bind(keyHash, now);
}

export async function keysOf(db: D1Database, clientId: string): Promise<KeyRow[]> {
  const { results } = await db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE client_id = ?1 ORDER BY created_at, key_hash`)
    .bind(clientId)
    .all<KeyRow>();
  return results;
}

/** The client's key whose hash starts with `hashPrefix` (the 16 hex digits of its key id). */
export function findKey(db: D1Database, clientId: string, hashPrefix: string): Promise<KeyRow | null> {
  return db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE client_id = ?1 AND substr(key_hash, 1, 16) = ?2`)
    .bind(clientId, hashPrefix)
    .first<KeyRow>();
}

/** What authentication learns of a live key: its client, and what the key may do and from where. */
export interface KeyGrant {
  clientId: string;
  scopes: string;
  allowedIps: string | null;
}

/**
 * The enabled client whose live key has this SHA-256 (hex), with the key's scopes and allow-list, or null,
 * with the time the database was at least that new: the lookup behind API-key authentication
 * (src/http/auth.ts), which keeps a found key, scopes and allow-list with it, until `asOf` plus
 * API_KEY_CACHE_SECONDS: one query, as before scopes. The answer is at most `maxAgeMs` old
 * (src/kernel/replica-reads.ts): a replica that has caught up with the isolate's last primary bookmark may
 * answer, never one that lags further, so a revoked key or a disabled client is never found again from a
 * stale copy. Only the primary may say a key is unknown (it may be newer than the bookmark).
 */
export function clientOfKey(db: D1Database, keyHash: string, maxAgeMs: number): Promise<DatedAnswer<KeyGrant | null>> {
  return readNoOlderThan(
    db,
    maxAgeMs,
    async (session) => {
      const row = await session
        .prepare(
          `SELECT k.client_id AS client_id, k.scopes AS scopes, k.allowed_ips AS allowed_ips
             FROM api_keys k JOIN clients c ON c.id = k.client_id
            WHERE k.key_hash = ?1 AND k.revoked_at IS NULL AND c.disabled_at IS NULL`,
        )
        .bind(keyHash)
        .first<{ client_id: string; scopes: string; allowed_ips: string | null }>();
      return row === null ? null : { clientId: row.client_id, scopes: row.scopes, allowedIps: row.allowed_ips };
    },
    (found) => found !== null,
  );
}
