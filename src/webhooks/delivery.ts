/**
 * Pure parts of webhook delivery: the signature a receiver checks and the retry schedule.
 *
 * `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (DESIGN.md, Webhooks).
 */

/** How long a receiver has to answer one delivery. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Attempts when WEBHOOK_MAX_ATTEMPTS is missing or not a positive integer. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** Delay before the 2nd attempt; each further one doubles it, up to BACKOFF_CAP_SECONDS. */
export const BACKOFF_BASE_SECONDS = 10;
export const BACKOFF_CAP_SECONDS = 3_600;

export const SIGNATURE_HEADER = "X-Signature";

const encoder = new TextEncoder();

function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Hex HMAC-SHA256 of `"<timestamp>.<rawBody>"` keyed with the client's webhook secret. */
export async function signatureOf(secret: string, timestamp: number, rawBody: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${rawBody}`)));
}

/** The X-Signature header value for a body sent at `timestamp` (unix seconds). */
export async function signatureHeader(secret: string, timestamp: number, rawBody: string): Promise<string> {
  return `t=${timestamp},v1=${await signatureOf(secret, timestamp, rawBody)}`;
}

/**
 * Seconds to wait before the next attempt, after attempt number `attempt` (1-based, as
 * `Message.attempts`) failed: 10, 20, 40, 80, 160, 320, 640, … capped at an hour.
 */
export function backoffSeconds(attempt: number): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  return Math.min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.min(exponent, 30));
}

/** WEBHOOK_MAX_ATTEMPTS as a number: how many deliveries are tried before the message is dead-lettered. */
export function maxAttemptsFrom(value: string | undefined): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_MAX_ATTEMPTS;
}
