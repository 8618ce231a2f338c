import { ApiError, fail, failure } from "./errors";

/** The client a request acts for. */
export interface Client {
  id: string;
  keyHash: string;
}

interface CachedKey {
  client: Client | null;
  until: number;
}

/**
 * API keys resolved in this isolate, good for API_KEY_CACHE_SECONDS: a revoked key stops working within
 * that time at the latest, and known keys cost no D1 query and no hashing on the hot path. Keyed by the
 * key itself, which lives only in this isolate's memory, as it does for the request that carried it.
 */
const keyCache = new Map<string, CachedKey>();
const KEY_CACHE_LIMIT = 10_000;

export function forgetCachedKeys(): void {
  keyCache.clear();
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header === null) return null;
  // The scheme name is case-insensitive (RFC 9110); the token is not.
  const match = /^Bearer ([\x21-\x7e]{1,256})$/i.exec(header.trim());
  return match ? match[1]! : null;
}

/** The client behind the request's API key, or 403 for a missing, unknown or revoked key. */
export async function authenticate(request: Request, env: Env): Promise<Client> {
  const key = bearerToken(request);
  if (key === null) fail("unauthenticated");
  const now = Date.now();
  const cached = keyCache.get(key);
  let client: Client | null;
  if (cached !== undefined && cached.until > now) {
    client = cached.client;
  } else {
    const keyHash = await sha256Hex(key);
    const row = await env.DB.prepare(
      `SELECT k.client_id AS client_id FROM api_keys k JOIN clients c ON c.id = k.client_id
        WHERE k.key_hash = ?1 AND k.revoked_at IS NULL AND c.disabled_at IS NULL`,
    )
      .bind(keyHash)
      .first<{ client_id: string }>();
    client = row === null ? null : { id: row.client_id, keyHash };
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    keyCache.set(key, { client, until: now + Number(env.API_KEY_CACHE_SECONDS) * 1000 });
  }
  if (client === null) fail("unauthenticated");
  const { success } = await env.RATE_LIMITER.limit({ key: client.keyHash });
  if (!success) throw new ApiError(failure("rate_limited"), { "retry-after": "10" });
  return client;
}
