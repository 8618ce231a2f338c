import { DurableObject } from "cloudflare:workers";
import { failure } from "../kernel/failures";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { runDueTimers, type TimerFlows } from "./alarm-flow";
import { confirm, settle } from "./confirm-flow";
import { create, type CreateAnswer, type CreateInput } from "./create-flow";
import { expire, expireNow } from "./expiry-flow";
import { indexOrder, writeOrderIndex } from "./index-flow";
import { objectHost, type OrderHost, type Result } from "./order-host";
import type { OrderRecord } from "./order-record";
import { OrderStore } from "./order-store";
import type { TimerKind } from "./order-timers";
import { orderView } from "./order-view";
import { flushOutbox, storedWebhookEvents, type StoredWebhookEvent } from "./outbox-flow";
import { processOrder } from "./processing-flow";
import { ORDER_SEAMS } from "./seams";

export type { Result } from "./order-host";

/**
 * The flow each timer runs, and whether it runs exclusively. Expiry and settling exclude confirm for their
 * whole run: a confirm either finishes first or starts after and finds the outcome. A time returned means
 * the timer ran too early and is due again then (nothing was done). `report` has no flow of its own: it
 * only brings the alarm back, and every run ends with the stuck report.
 */
const TIMER_FLOWS: TimerFlows = {
  expire: { exclusive: true, run: expire },
  settle: { exclusive: true, run: settle },
  outbox: { exclusive: false, run: flushOutbox },
  process: { exclusive: false, run: processOrder },
  // Its removal is not stored on its own (index-flow.ts): an object that restarts before the next write of
  // its document runs it once more, and the books take that write as a repeat.
  index: { exclusive: false, run: indexOrder, storedDone: false },
  report: null,
};

/**
 * One order: the RPC surface of its Durable Object, its concurrency, its alarm and the table from timer to
 * flow; each flow is a module of its own (create-flow.ts, confirm-flow.ts, processing-flow.ts,
 * expiry-flow.ts, outbox-flow.ts, stuck-report.ts; alarm-flow.ts runs the due timers' flows) that sees the
 * object through `OrderHost` (order-host.ts), index-flow.ts writing its row to its client's books. The
 * single-threaded object serialises create, confirm and get; its storage
 * (order-store.ts) holds the order document, the due times behind its one alarm and the outbox of events
 * written in the same transaction as the state change they announce. Every I/O call between two writes
 * goes through a fault seam (seams.ts).
 */
export class OrderObject extends DurableObject<Env> {
  private readonly store: OrderStore;
  private readonly host: OrderHost;
  /** The retrieve view of the loaded order as JSON, built once per stored version. */
  private view: { of: OrderRecord; json: string } | null = null;
  /** Timer runs (the alarm, processing started by confirm) go one after another, never two at once. */
  private timerRuns: Promise<void> = Promise.resolve();
  /**
   * The alarm time this instance last stored (null: none), so that arming it again at the same time is
   * not another storage write; undefined when unknown (a new instance, or one whose alarm write failed).
   */
  private alarmAt: number | null | undefined = undefined;
  /** What a fault test's reset does: this instance forgets everything it holds in memory. */
  private readonly reset = (): void => {
    this.store.forget();
    this.view = null;
    this.alarmAt = undefined;
  };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new OrderStore(ctx.storage);
    this.host = objectHost(ctx, env, this.store, {
      reset: this.reset,
      armAlarm: () => this.armAlarm(),
      // Not an alarm: nothing retries a throw of this run (its final alarm write failed), so it is logged.
      // The alarm stored with the confirmation (at the safety net), or moved since by a write that
      // succeeded, still stands and runs what is left.
      processSoon: (order) =>
        ctx.waitUntil(
          this.runSerially(() => this.runDueTimers("process")).catch((error: unknown) =>
            logFailure(error, { step: "confirm.process", orderId: order.id, clientId: order.clientId }),
          ),
        ),
    });
  }

  /**
   * Runs `work` with every other event of this object held back. A throw inside blockConcurrencyWhile
   * would reset the object, so the error is carried out and thrown after it.
   */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const outcome = await this.ctx.blockConcurrencyWhile(async () => {
      try {
        return { ok: true as const, value: await work() };
      } catch (error) {
        return { ok: false as const, error };
      }
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async armAlarm(): Promise<void> {
    const next = this.store.nextDue();
    if (next === this.alarmAt) return;
    this.alarmAt = undefined;
    await io(
      ORDER_SEAMS.setAlarm,
      () => (next === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(next)),
      this.reset,
    );
    this.alarmAt = next;
  }

  /** Answers the create view as JSON (see get). */
  async create(input: CreateInput): Promise<CreateAnswer> {
    return this.exclusive(() => create(this.host, input));
  }

  async confirm(clientId: string): Promise<Result<{ id: string; state: "confirmed" }>> {
    return this.exclusive(() => confirm(this.host, clientId));
  }

  /** The sandbox's expire-now (POST /sandbox/orders/:orderId/expire): the order's own expiry, at once. */
  async expireNow(clientId: string): Promise<Result<string>> {
    return this.exclusive(() => expireNow(this.host, clientId));
  }

  /**
   * The order as retrieve shows it, as JSON: the Worker puts it into the response as is, and a string
   * crosses the RPC boundary far cheaper than the nested view.
   */
  async get(clientId: string): Promise<Result<string>> {
    const order = this.store.load();
    if (order === null || order.clientId !== clientId) return failure("order_not_found");
    if (this.view?.of !== order) this.view = { of: order, json: JSON.stringify(orderView(order, this.host.livemode)) };
    return { ok: true, data: this.view.json };
  }

  /** The stored order, for the operator API. */
  async record(): Promise<OrderRecord | null> {
    return this.store.load();
  }

  /**
   * Writes the order's row to its client's books now, after any timer run under way (the repair pass asks
   * the orders the books hold as open, the backfill those of the old order index); answers the shard's
   * rows written (0: the books had it already). An `index` timer still set stays, and its run writes
   * nothing new.
   */
  async writeIndex(): Promise<number> {
    let rowsWritten = 0;
    await this.runSerially(async () => {
      rowsWritten = (await writeOrderIndex(this.host)).booksRowsWritten;
    });
    return rowsWritten;
  }

  /** The webhook events the order stored (the operator's order timeline). */
  async webhookEvents(): Promise<StoredWebhookEvent[]> {
    return storedWebhookEvents(this.store);
  }

  /**
   * Runs the timers that are due. The alarm is set to the earliest timer, so when it fires that one is
   * taken as due even if the clock reads earlier (as when a test runs the alarm at once). A failed alarm
   * write can leave the alarm earlier still: settling, processing and the outbox may run early (each
   * asks the wallet, the suppliers or its outbox how things stand), and expiry checks expiresAt itself.
   * Processing runs here without blocking the object, so that retrieve shows `processing` meanwhile.
   * A failing timer never makes the alarm throw: the platform retries a throwing alarm only 6 times and
   * then drops it, so a failed timer is stored again with capped backoff and retried for as long as it
   * takes. The one throw left is the final alarm write (see alarm-flow.ts).
   */
  override async alarm(): Promise<void> {
    // The alarm that fired is no longer stored: the next armAlarm writes one if a timer is left, and no
    // delete when none is (the order index's write is often an order's last alarm run). An alarm stored
    // meanwhile by another event and left standing would only run the due timers, of which there are none.
    this.alarmAt = null;
    return this.runSerially(() => this.runDueTimers());
  }

  private runSerially(work: () => Promise<void>): Promise<void> {
    const run = this.timerRuns.then(work, work);
    this.timerRuns = run.catch(() => undefined);
    return run;
  }

  /** `also` runs that timer now whatever its due time: confirm starts processing ahead of its safety net. */
  private runDueTimers(also?: TimerKind): Promise<void> {
    return runDueTimers(this.host, { flows: TIMER_FLOWS, exclusive: (work) => this.exclusive(work) }, also);
  }
}
