/**
 * A webhook receiver on 127.0.0.1 for the order-life suite, standing in for one HTTP server that serves
 * several clients: each client gets its own path (`/hooks/<clientId>`) and its deliveries are checked
 * against that client's webhook secret. Like test/webhooks/receiver.ts it replaces `globalThis.fetch`
 * (workerd tests cannot listen on a socket), so the real Queue consumer running in this isolate POSTs
 * here; it refuses any address but 127.0.0.1 and verifies with the `standardwebhooks` library, never with
 * src/webhooks.
 */
import { env } from "cloudflare:workers";
import { vi, type MockInstance } from "vitest";
import { testSecret, verifies } from "./receiver";

export const RECEIVER_ORIGIN = "http://127.0.0.1:9797";

export interface LifeDelivery {
  url: string;
  method: string;
  headers: Headers;
  /** The raw body, exactly as received. */
  body: string;
  /** The body parsed, or null when it is not JSON. */
  event: {
    id?: unknown;
    type?: unknown;
    createdAt?: unknown;
    data?: { orderId?: unknown; state?: unknown; reference?: unknown };
  } | null;
  /** The webhook-signature header, or null when there was none. */
  signature: string | null;
  signatureValid: boolean;
  status: number;
  receivedAt: number;
}

export class LifeReceiver {
  readonly deliveries: LifeDelivery[] = [];
  private readonly secrets = new Map<string, string>();
  /** Event id → how many more deliveries of it to answer with 503. */
  private readonly failures = new Map<string, number>();
  private readonly spy: MockInstance<typeof fetch>;

  constructor() {
    this.spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => this.receive(input, init));
  }

  restore(): void {
    this.spy.mockRestore();
  }

  /**
   * The webhookUrl for a client; its deliveries are verified with `secret`, or without one with a fresh
   * Standard Webhooks secret that this writes to the client's row first.
   */
  async urlFor(clientId: string, secret?: string): Promise<string> {
    if (secret === undefined) {
      secret = testSecret();
      await env.DB.prepare(`UPDATE clients SET webhook_secret = ?2 WHERE id = ?1`).bind(clientId, secret).run();
    }
    this.secrets.set(clientId, secret);
    return `${RECEIVER_ORIGIN}/hooks/${encodeURIComponent(clientId)}`;
  }

  /** Answers the next `times` deliveries of this event id with 503. */
  failNext(eventId: string, times = 1): void {
    this.failures.set(eventId, times);
  }

  /** Deliveries whose body names this order. */
  forOrder(orderId: string): LifeDelivery[] {
    return this.deliveries.filter((delivery) => delivery.event?.data?.orderId === orderId);
  }

  private async receive(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const url = new URL(request.url);
    // Tests never deliver to any address but loopback.
    if (url.hostname !== "127.0.0.1") throw new TypeError(`order-life receiver: refused to fetch ${url.origin}`);
    const body = await request.text();
    let event: LifeDelivery["event"] = null;
    try {
      event = JSON.parse(body) as LifeDelivery["event"];
    } catch {
      // recorded as is; the assertions will show it
    }
    const clientId = decodeURIComponent(/^\/hooks\/([^/]+)$/.exec(url.pathname)?.[1] ?? "");
    const secret = this.secrets.get(clientId);
    const signature = request.headers.get("webhook-signature");
    const signatureValid = secret !== undefined && verifies(secret, body, request.headers);
    const delivery: LifeDelivery = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      body,
      event,
      signature,
      signatureValid,
      status: 0,
      receivedAt: Date.now(),
    };
    this.deliveries.push(delivery);

    const eventId = typeof event?.id === "string" ? event.id : "";
    const failing = this.failures.get(eventId) ?? 0;
    if (failing > 0) {
      this.failures.set(eventId, failing - 1);
      delivery.status = 503;
      return new Response("not now", { status: 503 });
    }
    delivery.status = signatureValid ? 204 : 401;
    return new Response(signatureValid ? null : "bad signature", { status: delivery.status });
  }
}
