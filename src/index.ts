import { handleRequest } from "./app";
import { sweepReservations } from "./inventory/sweep";
import { once } from "./kernel/once";
import { askOrders } from "./orders/reservation-verdict";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";

/**
 * The queue consumer (webhook delivery, dead letters) and its message schemas are loaded with the first
 * batch, not when the Worker starts: no client request runs them, and a batch waits on no client.
 */
const queueHandler = once(async () => (await import("./webhooks/queue-handler")).queue);
/** The order indexer, loaded with the first scheduled run. */
const orderIndexer = once(async () => (await import("./orders/order-indexer")).scheduledIndexRun);

export default {
  fetch: handleRequest,
  queue: async (batch, env, ctx) => (await queueHandler())(batch, env, ctx),
  scheduled: async (controller, env) => {
    await sweepReservations(env, askOrders(env.ORDERS), controller.scheduledTime);
    await (
      await orderIndexer()
    )(env);
  },
} satisfies ExportedHandler<Env>;
