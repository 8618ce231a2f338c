/**
 * A webhook receiver on 127.0.0.1 that verifies every delivery with the `standardwebhooks` library (any
 * Standard Webhooks library works the same way) before it trusts the body, and dedupes on webhook-id.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** The body of every delivery: `type` is `order.<state>` of the state the order reached. */
export interface OrderEvent {
  id: string;
  type: string;
  createdAt: number;
  data: { orderId: string; state: string; reference: string };
}

export interface Receiver {
  /** The webhookUrl to give the order service. */
  url: string;
  /** Verified events, first delivery of each webhook-id only. */
  events: OrderEvent[];
  /** Deliveries whose signature did not verify (answered 401, so the service retries them). */
  rejected: number;
  close(): Promise<void>;
}

function isOrderEvent(value: unknown): value is OrderEvent {
  if (typeof value !== "object" || value === null || !("id" in value) || !("type" in value) || !("data" in value))
    return false;
  const data = value.data;
  return (
    typeof value.id === "string" &&
    typeof value.type === "string" &&
    typeof data === "object" &&
    data !== null &&
    "orderId" in data
  );
}

/** The three headers the library reads; Node gives each as a string (or an array when repeated). */
function signatureHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const one = (name: string) => String(headers[name] ?? "");
  return {
    "webhook-id": one("webhook-id"),
    "webhook-timestamp": one("webhook-timestamp"),
    "webhook-signature": one("webhook-signature"),
  };
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const webhook = new Webhook(secret);
  const seen = new Set<string>();
  const receiver: Receiver = { url: "", events: [], rejected: 0, close: async () => undefined };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // Verify the raw body exactly as received: re-serialised JSON would not match the signature.
      const raw = Buffer.concat(chunks).toString("utf8");
      let event: unknown;
      try {
        event = webhook.verify(raw, signatureHeaders(request.headers));
      } catch {
        receiver.rejected += 1;
        response.writeHead(401).end();
        return;
      }
      const id = String(request.headers["webhook-id"]);
      if (isOrderEvent(event) && !seen.has(id)) {
        seen.add(id);
        receiver.events.push(event);
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address: AddressInfo | string | null = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/webhooks/orders`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
