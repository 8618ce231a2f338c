import { handleRequest } from "./http/router";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";

export default {
  fetch: handleRequest,
} satisfies ExportedHandler<Env>;
