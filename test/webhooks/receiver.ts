/**
 * A fake webhook receiver for tests, standing in for an HTTP server on 127.0.0.1 (workerd tests cannot
 * listen on a socket): it replaces `globalThis.fetch`, refuses any address but loopback, verifies each
 * delivery the way an integrator would, with the `standardwebhooks` library (never the service's code),
 * fails the first `failFirst` deliveries and dedupes on the event id.
 */
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";

export const RECEIVER_URL = "http://127.0.0.1:9797/hooks/orders";

/** A fresh Standard Webhooks secret for a test client: `whsec_` + base64 of 32 random bytes. */
export function testSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

/** The three Standard Webhooks headers of a delivery, as a plain object for `Webhook.verify`. */
export function webhookHeaders(headers: Headers): Record<string, string> {
  return {
    "webhook-id": headers.get("webhook-id") ?? "",
    "webhook-timestamp": headers.get("webhook-timestamp") ?? "",
    "webhook-signature": headers.get("webhook-signature") ?? "",
  };
}

/** True when the `standardwebhooks` library accepts the delivery with this secret, now. */
export function verifies(secret: string, body: string, headers: Headers | Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers instanceof Headers ? webhookHeaders(headers) : headers);
    return true;
  } catch {
    return false;
  }
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
    const signatureValid = verifies(this.options.secret, body, request.headers);
    const delivery: Delivery = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      body,
      init,
      signatureValid,
      status: 0,
    };
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
