/**
 * The credentials a client holds: its API keys (`sk_live_…` in live, `sk_test_…` in the sandbox; stored only as a SHA-256 digest and named by a
 * key id) and its webhook signing secret (`whsec_…`). Made here, read here: the webhook consumer signs with
 * `webhookSigningKey` of the stored secret (src/webhooks/consumer.ts).
 */
import { fromBase64, randomBytes, randomHex, sha256Hex, toBase64 } from "../kernel/crypto";
import { API_KEY_PREFIX, type ServiceMode } from "../kernel/service-mode";

export interface NewApiKey {
  /** The key itself: handed to the operator once, never stored. */
  apiKey: string;
  keyHash: string;
  keyId: string;
}

/** A key id names a key without revealing it: `key_` and the first 16 hex digits of its SHA-256. */
export function keyIdOf(keyHash: string): string {
  return `key_${keyHash.slice(0, 16)}`;
}

/** The environment's prefix (`sk_live_`, `sk_test_`) and 256 random bits as hex. */
export async function newApiKey(mode: ServiceMode): Promise<NewApiKey> {
  const apiKey = `${API_KEY_PREFIX[mode]}${randomHex(32)}`;
  const keyHash = await sha256Hex(apiKey);
  return { apiKey, keyHash, keyId: keyIdOf(keyHash) };
}

/**
 * A webhook secret is `whsec_` + base64 of the signing key's bytes, exactly as the Standard Webhooks
 * libraries decode it (https://www.standardwebhooks.com). Secrets issued since are 32 random bytes. Secrets
 * issued before (`whsec_` + 64 hex digits) are read the same way: 64 hex digits are valid base64, so their
 * key is the 48 bytes they decode to, and a receiver that hands its existing secret to a Standard Webhooks
 * library verifies without change. Rotating moves a client to a 32-byte secret.
 */
const WEBHOOK_SECRET_PREFIX = "whsec_";

/** A new webhook secret: `whsec_` + base64 of 256 random bits. Stored as is. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${toBase64(randomBytes(32))}`;
}

/** The signing key of a `whsec_<base64>` secret; null when the secret is not of that form. */
export function webhookSigningKey(secret: string): Uint8Array | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  return encoded.length === 0 ? null : fromBase64(encoded);
}
