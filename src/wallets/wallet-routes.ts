import type { IRequest } from "itty-router";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { walletBalances } from "./wallet-moves";

// Only GET /openapi.json reads the answer's schema and the example: they load with the document.
const views = () => import("./wallet-schemas");
const examples = async () => (await import("./wallet-examples")).walletExamples;

/** GET /wallets: the calling client's balances per currency. */
export async function listWallets(_request: IRequest, { env, authenticate }: RequestContext): Promise<Response> {
  const client = await authenticate();
  return ok("Wallets", { wallets: await walletBalances(env, client.id) });
}

/** This file's routes, each with its description in GET /openapi.json; the operator's are in wallet-admin-routes.ts. */
export const walletRoutes: Route[] = [
  {
    method: "GET",
    path: "/wallets",
    handler: listWallets,
    operationId: "listWallets",
    example: async () => (await examples()).listWallets,
    tag: "Wallets",
    summary: "The calling client's wallets and balances",
    description:
      "Every wallet of the calling client with its balance, by currency. Pay an order from one of them with `wallet` in POST /order/create.",
    auth: "apiKey",
    data: async () => (await views()).WalletList,
    messages: ["Wallets"],
    errors: [],
  },
];
