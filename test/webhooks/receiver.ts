/**
 * A fake webhook receiver for tests, standing in for an HTTP server on 127.0.0.1 (workerd tests cannot
 * listen on a socket): it replaces `globalThis.fetch`, refuses any address but loopback, checks the
 * signature the way a real receiver would (with its own HMAC, not the service's code), fails the first
 * `failFirst` deliveries and dedupes on the event id.
 */
import { vi } from "vitest";

export const RECEIVER_URL = "http://127.0.0.1:9797/hooks/orders";

const encoder = new TextEncoder();

/** Hex HMAC-SHA256(secret, "<t>.<body>"), computed independently of src/webhooks. */
export async function expectedSignature(secret: string, timestamp: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${body}`));
  return [...new Uint8Array(mac)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Parses `t=<unix s>,v1=<hex>`; null when the header is not of that form. */
export function parseSignatureHeader(header: string | null): { t: string; v1: string } | null {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  return match ? { t: match[1]!, v1: match[2]! } : null;
}

export interface Delivery {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  init: RequestInit | undefined;
  signatureValid: boolean;
  status: number;
}

export interface FakeReceiverOptions {
  secret: string;
  /** Answer the first N deliveries with `failStatus` (or a network error, or a timeout). */
  failFirst?: number;
  failWith?: number | "network" | "timeout";
  /** Seconds the signature's t may be off from now. */
  toleranceSeconds?: number;
}

export class FakeReceiver {
  readonly deliveries: Delivery[] = [];
  /** Events taken in, deduplicated on id (what a receiver acts on). */
  readonly events = new Map<string, unknown>();
  failFirst: number;
  readonly spy;

  constructor(readonly options: FakeReceiverOptions) {
    this.failFirst = options.failFirst ?? 0;
    this.spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => this.receive(input, init));
  }

  restore(): void {
    this.spy.mockRestore();
  }

  private async receive(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const url = new URL(request.url);
    // Tests never deliver to any address but loopback.
    if (url.hostname !== "127.0.0.1") throw new Error(`test tried to deliver to ${url.hostname}`);
    const body = await request.text();
    const signature = parseSignatureHeader(request.headers.get("x-signature"));
    const now = Math.floor(Date.now() / 1000);
    const fresh = signature !== null && Math.abs(now - Number(signature.t)) <= (this.options.toleranceSeconds ?? 300);
    const signatureValid = fresh && signature.v1 === (await expectedSignature(this.options.secret, signature.t, body));
    const delivery: Delivery = { url: request.url, method: request.method, headers: request.headers, body, init, signatureValid, status: 0 };
    this.deliveries.push(delivery);

    if (this.failFirst > 0) {
      this.failFirst -= 1;
      const failWith = this.options.failWith ?? 503;
      if (failWith === "network") throw new TypeError("Network connection lost.");
      if (failWith === "timeout") throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
      delivery.status = failWith;
      return new Response("not now", { status: failWith });
    }
    if (!signatureValid) {
      delivery.status = 401;
      return new Response("bad signature", { status: 401 });
    }
    const event = JSON.parse(body) as { id: string };
    if (!this.events.has(event.id)) this.events.set(event.id, event);
    delivery.status = 204;
    return new Response(null, { status: 204 });
  }
}
