/**
 * Hex and base64, SHA-256, random bytes and keys derived from a secret: the one place the service turns
 * bytes into text and back.
 */

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

/** `bytes` random bytes. */
export function randomBytes(bytes: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(bytes));
}

/** `bytes` random bytes as hex. */
export function randomHex(bytes: number): string {
  return toHex(randomBytes(bytes));
}

/** Standard base64 (RFC 4648, padded). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of standard padded base64; null when the text is not exactly that. */
export function fromBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

const derivedKeys = new Map<string, Promise<CryptoKey>>();

/**
 * An HMAC-SHA256 key derived from `secret` by HKDF-SHA256 under `label`: each use has a key of its own, and
 * none says anything usable about the secret. Each derivation is kept, a few at a time (a rotation of the
 * secret brings a second for its overlap).
 */
export function derivedHmacKey(secret: string, label: string): Promise<CryptoKey> {
  const name = `${label}\u0000${secret}`;
  let key = derivedKeys.get(name);
  if (key === undefined) {
    const encoder = new TextEncoder();
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((material) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: encoder.encode("order-service"), info: encoder.encode(label) },
          material,
          { name: "HMAC", hash: "SHA-256", length: 256 },
          false,
          ["sign", "verify"],
        ),
      );
    if (derivedKeys.size >= 8) derivedKeys.clear();
    derivedKeys.set(name, key);
  }
  return key;
}
