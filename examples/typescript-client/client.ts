/**
 * A typed client of the order service: types generated from schema/openapi.json by openapi-typescript
 * (api.ts), calls made through openapi-fetch, not one cast. Creates an order, confirms it, polls
 * GET /order/get until the order reaches an end state, prints its redeem codes and, given the webhook
 * secret, receives and verifies the order's webhooks with the `standardwebhooks` library.
 *
 *   ORDER_SERVICE_URL            default http://127.0.0.1:8787 (`npm start`)
 *   ORDER_SERVICE_API_KEY        default sk_test_demo
 *   ORDER_SERVICE_WEBHOOK_SECRET the client's whsec_… secret (`npm start` prints the demo's); without it no
 *                                webhooks are asked for. The receiver listens on 127.0.0.1, which the service
 *                                accepts as a webhookUrl only with ALLOW_INSECURE_WEBHOOKS=true (local runs).
 *
 * Run: `npm run client` against a running `npm start` (the project's Node 24; a Node of your own needs >= 22.18
 * for `node examples/typescript-client/client.ts`). `npm run smoke` runs it against a fresh `npm start`.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./api.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";

type Order = components["schemas"]["Order"];
type OrderState = Order["state"];

/** States an order does not leave. */
const END_STATES: ReadonlySet<OrderState> = new Set<OrderState>(["successful", "partial", "failed", "rejected"]);

const baseUrl = process.env.ORDER_SERVICE_URL ?? "http://127.0.0.1:8787";
const apiKey = process.env.ORDER_SERVICE_API_KEY ?? "sk_test_demo";
const webhookSecret = process.env.ORDER_SERVICE_WEBHOOK_SECRET;

const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function placeOrder(receiver: Receiver | null): Promise<Order> {
  const created = await client.POST("/order/create", {
    body: {
      productList: [
        { sku: "DEMO-EU-FIXED", productType: "fixed", quote: 10, quantity: 1 },
        { sku: "DEMO-US-RANGE", productType: "range", quote: 15, quantity: 1 },
      ],
      wallet: "USD",
      // The reference makes create idempotent: sending the same body again returns the same order.
      reference: `example-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      ...(receiver === null ? {} : { webhookUrl: receiver.url }),
    },
  });
  if (created.error !== undefined)
    throw new Error(`create answered ${created.response.status} ${created.error.code}: ${created.error.message}`);
  const { id, invoice } = created.data.data;
  console.log(`created ${id}: ${invoice.total} ${invoice.wallet} (${invoice.status})`);

  const confirmed = await client.PUT("/order/confirm", { body: { orderId: id } });
  if (confirmed.error !== undefined)
    throw new Error(
      `confirm answered ${confirmed.response.status} ${confirmed.error.code}: ${confirmed.error.message}`,
    );
  console.log(`confirmed ${id}: ${confirmed.data.data.state}`);

  // Processing runs after confirm; poll until the order reaches an end state.
  const deadline = Date.now() + 30_000;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    const got = await client.GET("/order/get", { params: { query: { orderId: id } } });
    if (got.error !== undefined)
      throw new Error(`get answered ${got.response.status} ${got.error.code}: ${got.error.message}`);
    const order = got.data.data;
    if (END_STATES.has(order.state)) return order;
    if (Date.now() > deadline) throw new Error(`order ${id} still ${order.state} after 30 s`);
    await sleep(delay);
  }
}

const receiver = webhookSecret === undefined ? null : await startReceiver(webhookSecret);
try {
  const order = await placeOrder(receiver);
  console.log(
    `order ${order.uid} ${order.state}; paid ${order.invoice.total} ${order.invoice.wallet} (${order.invoice.status})`,
  );
  for (const [sku, redeem] of Object.entries(order.redeem)) {
    redeem.redeemPin.forEach((pin, index) =>
      console.log(
        `  ${sku} ${redeem.value} ${redeem.currency}: ${pin} ${redeem.redeemLinks[index] ?? redeem.redeemLink}`,
      ),
    );
  }

  if (receiver !== null) {
    // Webhooks arrive through a queue: wait for the event of the end state.
    const endType = `order.${order.state}`;
    const deadline = Date.now() + 15_000;
    while (
      !receiver.events.some((event) => event.data.orderId === order.uid && event.type === endType) &&
      Date.now() < deadline
    )
      await sleep(100);
    const mine = receiver.events.filter((event) => event.data.orderId === order.uid);
    console.log(
      `webhooks verified with standardwebhooks: ${mine.map((event) => event.type).join(", ") || "none"}; rejected: ${receiver.rejected}`,
    );
    if (!mine.some((event) => event.type === endType) || receiver.rejected > 0) process.exitCode = 1;
  }
  if (order.state !== "successful") process.exitCode = 1;
} finally {
  await receiver?.close();
}
