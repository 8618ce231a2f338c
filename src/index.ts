import { handleRequest } from "./app";
import { queue } from "./webhooks/queue-handler";
import { sweepReservations } from "./inventory/sweep";
import { askOrders } from "./orders/reservation-verdict";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";

export default {
  fetch: handleRequest,
  queue,
  scheduled: async (controller, env) => void (await sweepReservations(env, askOrders(env.ORDERS), controller.scheduledTime)),
} satisfies ExportedHandler<Env>;
