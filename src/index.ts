import { handleRequest } from "./app";
import { queue } from "./webhooks/queue-handler";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";

export default {
  fetch: handleRequest,
  queue,
} satisfies ExportedHandler<Env>;
