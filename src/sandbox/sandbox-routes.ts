/**
 * The sandbox's helpers for a client building an integration, under /sandbox/: top up its own wallets,
 * expire one of its orders now, and have an example of any webhook event sent, signed, to a URL. They
 * exist only in the sandbox: in live every path under /sandbox/ is 404 (app.ts registers them so), and
 * they are loaded with the first request there, not when the Worker starts.
 */
import type * as z from "zod";
import { Refusal, fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { randomHex } from "../kernel/crypto";
import { Money } from "../pricing/money";
import { objectIdOf } from "../orders/order-id";
import type { Result } from "../orders/order-object";
import { sandboxTopUpKey } from "../wallets/ledger-keys";
import type { PostingResult } from "../wallets/wallet-object";
import { openClientWallet } from "../wallets/wallet-registry-store";
import { atWallet, firstPlacement } from "../wallets/wallet-moves";
import { WALLET_MOVE_SEAMS } from "../wallets/seams";
import { postSignedEvent, secretsOf, signingKeys } from "../webhooks/consumer";
import { checkWebhookUrl } from "../webhooks/url-policy";
import { exampleEvent, sandboxTopUpAmount, testWebhookView, topUpIdempotencyKey, topUpView } from "./sandbox-rules";
import { SANDBOX_SEAMS } from "./seams";
import {
  SandboxOrderParams,
  SandboxTopUpData,
  SandboxTopUpRequest,
  SandboxWalletParams,
  TestWebhookData,
  TestWebhookRequest,
} from "./sandbox-schemas";
import { sandboxExamples } from "./sandbox-examples";

const views = () => import("../orders/order-view-schemas");

/** A top-up of the calling client's own wallet: what it asks for, and the request it came with. */
interface OwnTopUp {
  clientId: string;
  currency: string;
  body: z.output<typeof SandboxTopUpRequest>;
  /** The Idempotency-Key header, when sent. */
  keyHeader: string | null;
  requestId: string;
}

/**
 * POST /sandbox/wallets/:currency/top-ups: credits the calling client's own wallet (opening it if new) with
 * play money. Keyed by the client's idempotency key, so a retry after a lost answer adds nothing; every
 * failure is a 500 that is safe to retry with the same key.
 */
async function topUpOwnWallet(env: Env, { clientId, currency, body, keyHeader, requestId }: OwnTopUp) {
  const key = topUpIdempotencyKey(keyHeader, body.idempotencyKey);
  if (!key.ok) fail("invalid_request_body", { reason: key.reason });
  const amount = sandboxTopUpAmount(body.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const retry = { reason: "the top-up may or may not have been written; retry with the same idempotency key" };
  let result: PostingResult;
  let balance: Money;
  try {
    const registered = await io(SANDBOX_SEAMS.topUpOpenWallet, () =>
      openClientWallet(env.DB, clientId, currency, Date.now()),
    );
    // From the wallet's first object on, as the operator's top-up: a moved one answers a key it knows.
    const posted = await atWallet<PostingResult>(env, {
      clientId,
      currency,
      start: firstPlacement(registered),
      call: (wallet) =>
        wallet.post({
          key: sandboxTopUpKey(key.key),
          kind: "top_up",
          amount: amount.amount,
          reason: "sandbox self-serve top-up",
        }),
      through: (step, run) => io(step === "call" ? SANDBOX_SEAMS.topUpPost : WALLET_MOVE_SEAMS.moveIn, run),
    });
    result = posted.answer;
    if (result.ok) balance = new Money(await io(SANDBOX_SEAMS.topUpBalance, () => posted.wallet.balance()));
  } catch (error) {
    logFailure(error, { step: "sandbox.top-up", requestId, clientId });
    fail("server_error", retry);
  }
  if (!result.ok) {
    if (result.code === "idempotency_conflict") fail("idempotency_conflict", { idempotencyKey: key.key });
    logFailure(`unexpected ${result.code}`, { step: "sandbox.top-up", requestId, clientId });
    fail("server_error", retry);
  }
  return topUpView(currency, {
    amount: result.entry.amount,
    balance: balance!,
    key: key.key,
    replayed: result.replayed,
  });
}

/**
 * POST /sandbox/orders/:orderId/expire: the order's own expiry, now (OrderObject.expireNow); the order as
 * GET /order/get answers it, as JSON.
 */
async function expireOrderNow(env: Env, clientId: string, orderId: string, requestId: string): Promise<string> {
  const id = objectIdOf(env.ORDERS, orderId);
  if (id === null) fail("order_not_found");
  let result: Result<string>;
  try {
    result = (await env.ORDERS.get(id).expireNow(clientId)) as Result<string>;
  } catch (error) {
    // The order object stored the expiry before anything could fail: its alarm finishes it.
    logFailure(error, { step: "sandbox.expire-now", requestId, clientId, orderId });
    fail("server_error", { reason: "the order's expiry is under way and completes by itself; retry to see it" });
  }
  if (!result.ok) throw new Refusal(result);
  return result.data;
}

/**
 * POST /sandbox/webhooks/test: one signed POST of an example event to `url`, now, and what the receiver
 * answered. Not queued and not retried: it tests a receiver, and its answer says how that went.
 */
async function sendTestWebhook(env: Env, clientId: string, body: z.output<typeof TestWebhookRequest>) {
  const problem = checkWebhookUrl(body.url, env.ALLOW_INSECURE_WEBHOOKS === "true");
  if (problem !== null) fail("invalid_webhook_url", { reason: problem }, `webhookUrl is not allowed: ${problem}`);
  const secret = (await secretsOf(env.DB, [clientId])).get(clientId);
  const keys = secret == null ? null : signingKeys(secret, Date.now());
  const event = exampleEvent(body.type, {
    id: `evt_${randomHex(16)}`,
    orderId: `ord_${randomHex(32)}`,
    createdAt: Date.now(),
  });
  if (keys === null) {
    const error = "the client's webhook secret is not whsec_<base64>: ask the operator to rotate it";
    const sent = testWebhookView(event, { delivered: false, status: null, error });
    return { message: "Test webhook not sent", sent } as const;
  }
  const attempt = await postSignedEvent(body.url, event, keys);
  const delivery = { delivered: attempt.ok, status: attempt.status ?? null, error: attempt.ok ? null : attempt.error };
  const message = attempt.ok ? "Test webhook delivered" : "Test webhook not delivered";
  return { message, sent: testWebhookView(event, delivery) } as const;
}

const SANDBOX_ONLY = "Sandbox only: in live every path under /sandbox/ is 404.";

/** This file's routes, each with its description in GET /openapi.json. */
export const sandboxRoutes: Route[] = [
  route(
    {
      method: "POST",
      path: "/sandbox/wallets/:currency/top-ups",
      operationId: "sandboxTopUp",
      example: sandboxExamples.sandboxTopUp,
      tag: "Sandbox",
      summary: "Top up one of your own wallets (sandbox)",
      description:
        `${SANDBOX_ONLY} Credits the calling client's wallet in \`currency\` (opening it if it is new) with ` +
        "play money: at most 1000000 per top-up.\n\n" +
        "Send an idempotency key as the Idempotency-Key header or `idempotencyKey` in the body (one is required): " +
        'a retry with the same key and amount adds nothing and answers "Top-up already applied".',
      auth: "apiKey",
      scope: "orders:write",
      params: SandboxWalletParams,
      body: SandboxTopUpRequest,
      requestHeaders: {
        "Idempotency-Key": {
          description:
            "The top-up's idempotency key (or `idempotencyKey` in the body): 1 to 128 visible ASCII characters.",
          schema: { type: "string", minLength: 1, maxLength: 128 },
        },
      },
      data: SandboxTopUpData,
      messages: ["Wallet topped up", "Top-up already applied"],
      checks: [
        { when: "`currency`", codes: ["invalid_parameters"] },
        {
          when: "The body, its idempotency key (sent once, or the same twice) and its amount",
          codes: ["malformed_json", "invalid_request_body"],
        },
        { when: "The key: used before for another amount", codes: ["idempotency_conflict"] },
      ],
    },
    async ({ params: { currency }, body, headers, client, env, requestId, ok }) => {
      const keyHeader = headers.get("idempotency-key");
      const topUp = await topUpOwnWallet(env, { clientId: client.id, currency, body, keyHeader, requestId });
      return ok(topUp.replayed ? "Top-up already applied" : "Wallet topped up", topUp);
    },
  ),
  route(
    {
      method: "POST",
      path: "/sandbox/orders/:orderId/expire",
      operationId: "sandboxExpireOrder",
      example: sandboxExamples.sandboxExpireOrder,
      tag: "Sandbox",
      summary: "Expire one of your created orders now (sandbox)",
      description:
        `${SANDBOX_ONLY} Does to a \`created\` order of the calling client what its expiry does at ` +
        "`expiresAt`, now: its reserved codes go back on sale, its wallet voids it for good (a later confirm is " +
        "419 Expired), it becomes `rejected` and its order.rejected webhook is sent.\n\n" +
        "Answers the order as GET /order/get does. Asked again, a rejected order answers as it is.",
      auth: "apiKey",
      scope: "orders:write",
      params: SandboxOrderParams,
      data: async () => (await views()).OrderView,
      messages: ["Order expired"],
      checks: [
        { when: "`orderId`", codes: ["invalid_parameters"] },
        {
          when: "An order of the calling client has that id (another client's is answered as an unknown one)",
          codes: ["order_not_found"],
        },
        { when: "The order is `created` (or `rejected` already)", codes: ["order_already_confirmed"] },
      ],
    },
    async ({ params: { orderId }, client, env, requestId, okJson }) =>
      okJson("Order expired", await expireOrderNow(env, client.id, orderId, requestId)),
  ),
  route(
    {
      method: "POST",
      path: "/sandbox/webhooks/test",
      operationId: "sandboxTestWebhook",
      example: sandboxExamples.sandboxTestWebhook,
      tag: "Sandbox",
      summary: "Send a signed example webhook to a URL (sandbox)",
      description:
        `${SANDBOX_ONLY} POSTs an example event of \`type\` to \`url\` once, now, signed with the calling ` +
        "client's webhook secret exactly as the order webhooks are (Standard Webhooks), and answers what the " +
        "receiver did.\n\nNot retried and not dead-lettered: send it again to try again.",
      auth: "apiKey",
      scope: "orders:write",
      body: TestWebhookRequest,
      data: TestWebhookData,
      messages: ["Test webhook delivered", "Test webhook not delivered", "Test webhook not sent"],
      checks: [
        { when: "The body", codes: ["malformed_json", "invalid_request_body"] },
        { when: "`url`, by the rules of an order's webhookUrl", codes: ["invalid_webhook_url"] },
      ],
    },
    async ({ body, client, env, ok }) => {
      const { message, sent } = await sendTestWebhook(env, client.id, body);
      return ok(message, sent);
    },
  ),
];
