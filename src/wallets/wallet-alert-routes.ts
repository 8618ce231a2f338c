/**
 * The calling client's low-balance alert per wallet (docs/api.md, "Events"): `wallet.low` fires when the
 * balance goes below the threshold, once per crossing and at most once per 24 hours; the wallet decides it
 * in the transaction that changes its balance (wallet-events.ts). Another client's wallet, or a currency
 * the client has none in, is 404 wallet_unknown, as on the wallet's other routes.
 */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { once } from "../kernel/once";
import { atWallet } from "./wallet-moves";
import { placementOf, walletCurrencies, type RegisteredWallet } from "./wallet-registry-store";
import { thresholdAmount } from "./wallet-rules";

const schemas = once(() => import("./wallet-alert-schemas"));

const EXAMPLE = { request: { threshold: "100.00" }, data: { currency: "USD", threshold: "100" } };

async function callersWallet(env: Env, clientId: string, currency: string): Promise<RegisteredWallet> {
  const wallet = (await walletCurrencies(env.DB, clientId)).find((registered) => registered.currency === currency);
  if (wallet === undefined) fail("wallet_unknown", { clientId, currency });
  return wallet;
}

async function setAlert(env: Env, clientId: string, currency: string, threshold: string | null) {
  const wallet = await callersWallet(env, clientId, currency);
  const { answer } = await atWallet<{ threshold: string | null }>(env, {
    clientId,
    currency,
    start: placementOf(wallet),
    call: (stub) => stub.setAlert({ clientId, currency }, threshold),
  });
  return { currency, threshold: answer.threshold };
}

const CHECKS = [
  { when: "`currency`", codes: ["invalid_parameters"] },
  {
    when: "The client has a wallet in `currency` (another client's is answered as an unknown one)",
    codes: ["wallet_unknown"],
  },
] as const;

/** This file's routes, each with its description in GET /openapi.json. */
export const walletAlertRoutes: Route[] = [
  route(
    {
      method: "PUT",
      path: "/wallets/:currency/alert",
      scope: "orders:write",
      operationId: "setWalletAlert",
      example: EXAMPLE,
      tag: "Wallets",
      summary: "Set your low-balance threshold of a wallet",
      description:
        "Sets the balance below which the wallet announces `wallet.low` (GET /events and your account webhook endpoints): once each time the balance goes below it, at most once per 24 hours; a balance back at or above it re-arms the alert. Setting it above the current balance is not a crossing: the alert arms once the balance is at or above it. `threshold: null` clears it (so does DELETE). GET /wallets shows it.",
      auth: "apiKey",
      params: async () => (await schemas()).AlertParams,
      body: async () => (await schemas()).SetAlertRequest,
      data: async () => (await schemas()).AlertData,
      messages: ["Alert set"],
      checks: [
        CHECKS[0],
        {
          when: "The body: `threshold` a decimal string, not negative, in the currency's minor units, or null",
          codes: ["malformed_json", "invalid_request_body"],
        },
        CHECKS[1],
      ],
    },
    async ({ params: { currency }, body, client, env, ok }) => {
      let threshold: string | null = null;
      if (body.threshold !== null) {
        const checked = thresholdAmount(body.threshold, currency);
        if (!checked.ok) fail("invalid_request_body", { reason: checked.reason });
        threshold = checked.amount;
      }
      return ok("Alert set", await setAlert(env, client.id, currency, threshold));
    },
  ),
  route(
    {
      method: "DELETE",
      path: "/wallets/:currency/alert",
      scope: "orders:write",
      operationId: "clearWalletAlert",
      example: { data: { currency: "USD", threshold: null } },
      tag: "Wallets",
      summary: "Clear your low-balance threshold of a wallet",
      description: "Clears the threshold: the wallet announces no `wallet.low` until one is set again.",
      auth: "apiKey",
      params: async () => (await schemas()).AlertParams,
      data: async () => (await schemas()).AlertData,
      messages: ["Alert cleared"],
      checks: [...CHECKS],
    },
    async ({ params: { currency }, client, env, ok }) =>
      ok("Alert cleared", await setAlert(env, client.id, currency, null)),
  ),
];
