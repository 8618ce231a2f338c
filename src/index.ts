import { handleRequest } from "./app";
import { sweepReservations } from "./inventory/sweep";
import { logFailure } from "./kernel/log";
import { once } from "./kernel/once";
import { askOrders } from "./orders/reservation-verdict";

export { OrderObject } from "./orders/order-object";
export { WalletObject } from "./wallets/wallet-object";
import { BooksObject as BooksObjectOf } from "./books/books-object";
import type { EventAnnouncer } from "./books/event-flow";

/**
 * The queue consumer (webhook delivery, dead letters) and its message schemas are loaded with the first
 * batch, not when the Worker starts: no client request runs them, and a batch waits on no client.
 */
const queueHandler = once(async () => (await import("./webhooks/queue-handler")).queue);
/** The reconciliation's queue: the wallet-days a pass hands out (src/reconciliation/day-queue.ts). */
const RECONCILIATION_QUEUES = new Set(["order-reconciliation", "order-reconciliation-sandbox"]);
const reconciliationConsumer = once(async () => (await import("./reconciliation/day-queue")).checkHandedOut);
/** The steps of the exports across clients (src/exports/export-step.ts), loaded with their first batch. */
const EXPORT_QUEUES = new Set(["order-exports", "order-exports-sandbox"]);
const exportConsumer = once(async () => (await import("./exports/export-jobs")).consumeSteps);

/**
 * The webhooks' fan-out of a client's new events to its account endpoints, which a books shard calls
 * before it stores them (the books cannot import webhooks); loaded with the first event.
 */
const fanOut = once(async () => (await import("./webhooks/endpoint-fanout")).announceToEndpoints);

/** A client's books shard, with the announcer of its new events handed in. */
export class BooksObject extends BooksObjectOf {
  constructor(ctx: DurableObjectState, env: Env) {
    const announce: EventAnnouncer = async (clientId, events) => (await fanOut())(env, clientId, events);
    super(ctx, env, announce);
  }
}

/**
 * The cron (every 5 minutes) sweeps reservations, moves what is left of D1's order index into the
 * client's books while its backfill runs, drops the books' days past their retention, and makes a pass of
 * the reconciliation by wallet and day (the days whose books changed, those settling or due their
 * re-verification), storing it for the Needs attention list, and hands on the step of an export across
 * clients that was lost. The order index needs no pass:
 * each order writes its own row. Each step runs whatever another did: a failure is logged (the next run
 * tries again) and does not keep the steps after it from running.
 */
async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const steps: [string, () => Promise<unknown>][] = [
    ["inventory.sweep", () => sweepReservations(env, askOrders(env.ORDERS), controller.scheduledTime)],
    // Reads one row once the books' backfill has finished (migration 0031).
    ["books.backfill", async () => (await import("./order-index/order-index-backfill")).runBackfill(env)],
    // Reads one row while everything is kept, the default (migration 0032).
    [
      "books.retention",
      async () => (await import("./books/books-retention")).dropExpiredDays(env, controller.scheduledTime),
    ],
    ["orders.reconcile", async () => (await import("./reconciliation/reconciliation")).runAndStore(env)],
    // Reads the running exports' partial index: nothing while no export runs.
    [
      "exports.hand-on",
      async () => (await import("./exports/export-jobs")).handOnLostSteps(env, controller.scheduledTime),
    ],
  ];
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
  queue: async (batch, env, ctx) =>
    RECONCILIATION_QUEUES.has(batch.queue)
      ? (await reconciliationConsumer())(batch, env)
      : EXPORT_QUEUES.has(batch.queue)
        ? (await exportConsumer())(batch as MessageBatch<{ exportId: number }>, env)
        : (await queueHandler())(batch, env, ctx),
  scheduled,
} satisfies ExportedHandler<Env>;
