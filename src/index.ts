import { handleRequest } from "./app";
import { sweepReservations } from "./inventory/sweep";
import { logFailure } from "./kernel/log";
import { once } from "./kernel/once";
import { isHourlyRun } from "./reconciliation/reconciliation-rules";
import { askOrders } from "./orders/reservation-verdict";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";

/**
 * The queue consumer (webhook delivery, dead letters) and its message schemas are loaded with the first
 * batch, not when the Worker starts: no client request runs them, and a batch waits on no client.
 */
const queueHandler = once(async () => (await import("./webhooks/queue-handler")).queue);
/** The order indexer, loaded with the first scheduled run. */
const orderIndexer = once(async () => (await import("./order-index/order-indexer")).indexOrders);

/**
 * The cron (every 5 minutes) sweeps reservations and brings the order index up to date each time and,
 * once an hour, reconciles the last day and stores the run for the Needs attention list; the indexer and
 * the reconciliation are loaded only then. Each step runs whatever another did: a failure is logged (the
 * next run tries again) and does not keep the steps after it from running.
 */
async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const steps: [string, () => Promise<unknown>][] = [
    ["inventory.sweep", () => sweepReservations(env, askOrders(env.ORDERS), controller.scheduledTime)],
    ["orders.index", async () => (await orderIndexer())(env)],
  ];
  if (isHourlyRun(controller.scheduledTime))
    steps.push(["orders.reconcile", async () => (await import("./reconciliation/reconciliation")).runAndStore(env)]);
  for (const [step, run] of steps) {
    try {
      await run();
    } catch (error) {
      logFailure(error, { step: `scheduled.${step}` });
    }
  }
}

export default {
  fetch: handleRequest,
  queue: async (batch, env, ctx) => (await queueHandler())(batch, env, ctx),
  scheduled,
} satisfies ExportedHandler<Env>;
