/** Operator API: the Needs attention list and the thresholds it is judged by. */
import { route, type Route } from "../http/route";
import { SkuParams } from "../kernel/primitives";
import { WalletPathParams } from "../wallets/wallet-admin-schemas";
import { needsAttention } from "./attention";
import { attentionExamples } from "./attention-examples";
import {
  AttentionData,
  StockThresholdData,
  StockThresholdRequest,
  WalletThresholdData,
  WalletThresholdRequest,
} from "./attention-admin-schemas";
import { setStockThreshold, setWalletThreshold } from "./threshold-actions";

/** This file's routes, each with its description in GET /openapi.json. */
export const attentionRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/attention",
      operationId: "adminGetAttention",
      example: attentionExamples.adminGetAttention,
      tag: "Admin: attention",
      role: "viewer",
      summary: "What needs an operator: stuck orders, dead letters, low stock, low balances",
      description:
        "The console's home page as JSON: the first 50 stuck orders (GET /admin/orders/stuck), the newest 50 dead letters not replayed yet (GET /admin/webhooks/dead-letters), each with `more` when its own list holds more; active inventory SKUs with fewer available codes than their low-stock threshold, with their counts per value; and wallets whose balance is below their low-balance threshold, with the balance. It reads one wallet object per wallet with a threshold.",
      auth: "admin",
      data: AttentionData,
      messages: ["Needs attention"],
      errors: [],
    },
    async ({ env, ok }) => ok("Needs attention", await needsAttention(env)),
  ),
  route(
    {
      method: "PUT",
      path: "/admin/products/:sku/low-stock-threshold",
      operationId: "adminSetStockThreshold",
      example: attentionExamples.adminSetStockThreshold,
      tag: "Admin: attention",
      role: "operator",
      summary: "Set or remove an inventory SKU's low-stock threshold",
      description:
        "The SKU is listed in GET /admin/attention while it is active and fewer of its codes than `threshold` are available (all values together). `null` removes the threshold. Only SKUs supplied from uploaded codes (`inventory`) take one: any other is 400.",
      auth: "admin",
      params: SkuParams,
      body: StockThresholdRequest,
      data: StockThresholdData,
      messages: ["Low-stock threshold set", "Low-stock threshold removed"],
      errors: ["sku_not_found"],
    },
    async ({ params: { sku }, body: { threshold }, caller, env, ok }) =>
      ok(
        threshold === null ? "Low-stock threshold removed" : "Low-stock threshold set",
        await setStockThreshold(env.DB, caller, sku, threshold),
      ),
  ),
  route(
    {
      method: "PUT",
      path: "/admin/wallets/:clientId/:currency/low-balance-threshold",
      operationId: "adminSetWalletThreshold",
      example: attentionExamples.adminSetWalletThreshold,
      tag: "Admin: attention",
      role: "operator",
      summary: "Set or remove a wallet's low-balance threshold",
      description:
        "The wallet is listed in GET /admin/attention while its balance is below `threshold` (in the wallet's currency, positive, with at most its minor units). `null` removes the threshold. The wallet must exist (its first top-up opens it).",
      auth: "admin",
      params: WalletPathParams,
      body: WalletThresholdRequest,
      data: WalletThresholdData,
      messages: ["Low-balance threshold set", "Low-balance threshold removed"],
      errors: ["client_not_found", "wallet_unknown"],
    },
    async ({ params: { clientId, currency }, body: { threshold }, caller, env, ok }) => {
      const data = await setWalletThreshold(env, caller, clientId, currency, threshold);
      return ok(threshold === null ? "Low-balance threshold removed" : "Low-balance threshold set", data);
    },
  ),
];
