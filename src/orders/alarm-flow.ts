/**
 * The alarm's run: each due timer's flow, then the stuck report, then the alarm armed again. The order
 * object (order-object.ts) runs it one run at a time, from its alarm and from confirm.
 */
import { logFailure } from "../kernel/log";
import type { OrderHost } from "./order-host";
import type { TimerKind } from "./order-timers";
import { reportStuck } from "./stuck-report";

/**
 * The flow each timer runs, and whether it runs exclusively (the order object's table). A time returned
 * means the timer ran too early and is due again then (nothing was done); null: the kind has no flow.
 */
export type TimerFlows = Record<
  TimerKind,
  { exclusive: boolean; run: (host: OrderHost) => Promise<number | null | void>; storedDone?: false } | null
>;

/** Runs `work` with every other event of the object held back (the object's blockConcurrencyWhile). */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Runs the timers that are due, each through its flow; `also` runs that timer now whatever its due time:
 * confirm starts processing ahead of its safety net.
 */
export async function runDueTimers(
  host: OrderHost,
  { flows, exclusive }: { flows: TimerFlows; exclusive: Exclusive },
  also?: TimerKind,
): Promise<void> {
  const timers = host.store.timers();
  if (timers.length === 0) return;
  // An alarm that fired runs its timer even if the clock reads earlier; a run asked for `also` (confirm's
  // processing) runs only what is due by the clock, so that it does not take a later timer early.
  const horizon = also === undefined ? Math.max(Date.now(), timers[0]!.dueAt) : Date.now();
  for (const timer of timers) {
    const flow = flows[timer.kind];
    if (flow === null || (timer.dueAt > horizon && timer.kind !== also)) continue;
    try {
      const notBefore = await (flow.exclusive ? exclusive(() => flow.run(host)) : flow.run(host));
      if (typeof notBefore === "number") host.store.schedule(timer.kind, notBefore);
      else host.store.completeTimer(timer, flow.storedDone ?? true);
    } catch (error) {
      const failed = host.store.failTimer(timer.kind, Date.now(), String(error));
      const order = host.store.load();
      logFailure(error, {
        step: `timer.${timer.kind}`,
        orderId: order?.id ?? host.orderId,
        clientId: order?.clientId,
        failures: failed.failures,
      });
    }
  }
  await reportStuck(host);
  // Not caught: the alarm that fired is no longer stored, so if arming the next one fails, throwing is
  // the only way to have the platform run this handler again (up to 6 retries with backoff; each runs
  // the due timers again, all idempotent, and arms again). Should every retry fail to arm it, the timers
  // stay stored but unscheduled until a call that arms the alarm (a replayed create) reaches the object.
  await host.armAlarm();
}
