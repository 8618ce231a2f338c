/**
 * Pure parts of webhook delivery: the Standard Webhooks signature a receiver checks and the retry schedule.
 *
 * Every delivery carries (docs/webhooks.md; https://www.standardwebhooks.com):
 * - `webhook-id`: the event id, the same on every attempt and replay (receivers dedupe on it);
 * - `webhook-timestamp`: unix seconds of this attempt;
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`, and for 24 h after a
 *   secret rotation a second, space-separated `v1,<…>` made with the previous secret.
 * The key is the decoded bytes of the client's `whsec_<base64>` secret (src/clients/client-secrets.ts).
 */
import { cappedBackoff } from "../kernel/backoff";
import { toBase64 } from "../kernel/crypto";

/** How long a receiver has to answer one delivery. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Attempts when WEBHOOK_MAX_ATTEMPTS is missing or not a positive integer. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** Delay before the 2nd attempt; each further one doubles it, up to BACKOFF_CAP_SECONDS. */
export const BACKOFF_BASE_SECONDS = 10;
export const BACKOFF_CAP_SECONDS = 3_600;

export const ID_HEADER = "webhook-id";
export const TIMESTAMP_HEADER = "webhook-timestamp";
export const SIGNATURE_HEADER = "webhook-signature";
/** After a rotation, deliveries are signed with the previous secret too for this long. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const encoder = new TextEncoder();

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<rawBody>")>` for one key. */
export async function signatureOf(key: Uint8Array, id: string, timestamp: number, rawBody: string): Promise<string> {
  const hmacKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, encoder.encode(`${id}.${timestamp}.${rawBody}`))))}`;
}

/**
 * The three signature headers of one attempt at `timestamp` (unix seconds), signed with each key in order
 * (the current secret's first, then the previous one's while the overlap lasts).
 */
export async function signedHeaders(
  keys: Uint8Array[],
  id: string,
  timestamp: number,
  rawBody: string,
): Promise<Record<string, string>> {
  const signatures = await Promise.all(keys.map((key) => signatureOf(key, id, timestamp, rawBody)));
  return { [ID_HEADER]: id, [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: signatures.join(" ") };
}

/**
 * Seconds to wait before the next attempt, after attempt number `attempt` (1-based, as
 * `Message.attempts`) failed: 10, 20, 40, 80, 160, 320, 640, … capped at an hour.
 */
export function backoffSeconds(attempt: number): number {
  return cappedBackoff(attempt, BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS);
}

/** WEBHOOK_MAX_ATTEMPTS as a number: how many deliveries are tried before the message is dead-lettered. */
export function maxAttemptsFrom(value: string | undefined): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_MAX_ATTEMPTS;
}
