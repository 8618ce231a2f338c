import { newSecret } from "../webhooks/delivery";
import { sha256Hex } from "../http/auth";

export function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

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

/** `sk_live_` and 256 random bits as hex. */
export async function newApiKey(): Promise<NewApiKey> {
  const apiKey = `sk_live_${randomHex(32)}`;
  const keyHash = await sha256Hex(apiKey);
  return { apiKey, keyHash, keyId: keyIdOf(keyHash) };
}

/**
 * A Standard Webhooks secret: `whsec_` and base64 of 256 random bits. Stored as is: the webhook consumer
 * signs with the decoded bytes (src/webhooks/delivery.ts).
 */
export function newWebhookSecret(): string {
  return newSecret();
}
