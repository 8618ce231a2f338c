import { handleRequest } from "./app";
import { queue } from "./webhooks/queue-handler";
import { sweepReservations } from "./inventory/sweep";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";

export default {
  fetch: handleRequest,
  queue,
  scheduled: async (controller, env) => void (await sweepReservations(env, controller.scheduledTime)),
} satisfies ExportedHandler<Env>;
