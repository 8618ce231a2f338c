import { DurableObject } from "cloudflare:workers";
import { releaseCodes, reserveCodes, type Reservation } from "../inventory/reservations";
import { failure, type Failure } from "../http/errors";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { serviceMode } from "../kernel/service-mode";
import { Money, toAmountNumber } from "../pricing/money";
import type { HoldResult, WalletObject } from "../wallets/wallet-object";
import { walletStub } from "../wallets/wallet-registry";
import type { OrderPlan } from "./order-plan";
import { objectHost, type OrderHost, type Result } from "./order-host";
import { orderIdOf } from "./order-id";
import type { OrderRecord } from "./order-record";
import { OrderStore } from "./order-store";
import type { Timer, TimerKind } from "./order-timers";
import { createView, orderView } from "./order-view";
import type { CreateOrderRequest } from "./requests";
import { confirm, settle } from "./confirm-flow";
import { cancelExpiry, expire, expireNow } from "./expiry-flow";
import { flushOutbox } from "./outbox-flow";
import { processOrder } from "./processing-flow";
import { ORDER_SEAMS } from "./seams";
import { reportStuck } from "./stuck-report";

export type { Result } from "./order-host";

export interface CreateInput {
  clientId: string;
  request: CreateOrderRequest;
  requestHash: string;
  /**
   * The Worker's create checks and pricing, `Failure | ({ ok: true } & OrderPlan)` as JSON: the order to
   * store, or why there is none. One string spares the RPC a structured clone of the nested plan (the
   * bench's difference was within its run-to-run noise; the views go back the same way).
   */
  planJson: string;
}


/**
 * The flow each timer runs, and whether it runs exclusively. Expiry and settling exclude confirm for their
 * whole run: a confirm either finishes first or starts after and finds the outcome. A time returned means
 * the timer ran too early and is due again then (nothing was done). `report` has no flow of its own: it
 * only brings the alarm back, and every run ends with the stuck report.
 */
const TIMER_FLOWS: Record<
  TimerKind,
  { exclusive: boolean; run: (host: OrderHost) => Promise<number | null | void> } | null
> = {
  expire: { exclusive: true, run: expire },
  settle: { exclusive: true, run: settle },
  outbox: { exclusive: false, run: flushOutbox },
  process: { exclusive: false, run: processOrder },
  report: null,
};

/**
 * One order: the RPC surface of its Durable Object. Its single-threaded object serialises create, confirm
 * and get; its storage (src/orders/order-store.ts) holds the order document, the due times behind its
 * one alarm (expiry, settling a cut-off confirm, processing, webhook outbox, retrying a stuck-list write)
 * and the outbox of events written in the same transaction as the state change they announce. Every I/O call between two writes
 * goes through a fault seam (src/orders/seams.ts).
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
   * not another storage write; undefined when unknown (a new instance, or an alarm that has just fired).
   */
  private alarmAt: number | null | undefined = undefined;
  /** What a fault test's reset does: this instance forgets everything it holds in memory. */
  private readonly reset = (): void => {
    this.store.forget();
    this.view = null;
    this.alarmAt = undefined;
  };

  /** Whether this is a live order: every order of a deployment has the deployment's mode. */
  private readonly livemode: boolean;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new OrderStore(ctx.storage);
    this.livemode = serviceMode(env) === "live";
    this.host = objectHost(ctx, env, this.store, {
      reset: this.reset,
      armAlarm: () => this.armAlarm(),
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

  /** Stores the order with its timers and, for a state a webhook announces, the event; arms the alarm. */
  private save(order: OrderRecord, previous: OrderRecord["state"] | null, timers: Partial<Record<TimerKind, number | null>> = {}): Promise<boolean> {
    return this.host.save(order, previous, timers);
  }

  private async armAlarm(): Promise<void> {
    const next = this.store.nextDue();
    if (next === this.alarmAt) return;
    this.alarmAt = undefined;
    await io(ORDER_SEAMS.setAlarm, () => (next === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(next)), this.reset);
    this.alarmAt = next;
  }

  private owned(clientId: string): OrderRecord | null {
    const order = this.store.load();
    return order !== null && order.clientId === clientId ? order : null;
  }

  private wallet(order: Pick<OrderRecord, "clientId" | "wallet" | "walletRegion">): DurableObjectStub<WalletObject> {
    return walletStub(this.env, order.clientId, order.wallet, order.walletRegion ?? null);
  }

  /** Answers the create view as JSON (see get). */
  async create(input: CreateInput): Promise<Result<{ order: string; replayed: boolean }>> {
    return this.exclusive(() => this.createExclusive(input));
  }

  /**
   * The reference check comes first, so that a replayed create returns its order whatever the catalogue
   * says now. Stock is then decided by reserving it (atomically, in D1, idempotently per order) and the
   * balance is checked last, as the create checks are ordered; a create refused for its balance gives its
   * codes back. A create cut off anywhere leaves at most codes held under its expiry timer: the client's
   * retry reserves again in place of them, and the timer gives them back if no retry comes.
   */
  private async createExclusive({ clientId, request, requestHash, planJson }: CreateInput): Promise<Result<{ order: string; replayed: boolean }>> {
    const existing = this.store.load();
    if (existing !== null) {
      if (existing.clientId === clientId && existing.requestHash === requestHash) {
        // The first answer may have been lost before its alarm was armed.
        await this.armAlarm();
        return { ok: true, data: { order: JSON.stringify(createView(existing, this.livemode)), replayed: true } };
      }
      return failure("reference_already_used", { orderId: existing.id });
    }
    const plan = JSON.parse(planJson) as Failure | ({ ok: true } & OrderPlan);
    if (!plan.ok) {
      // An earlier attempt with another body may have died holding codes: a refused retry gives them back
      // now rather than at that attempt's expiry.
      if (this.store.nextDue() !== null) await this.releaseHeldCodes();
      return plan;
    }

    const id = orderIdOf(this.ctx.id);
    const now = Date.now();
    const expiresAt = now + Number(this.env.ORDER_TTL_SECONDS) * 1000;
    const reservations: Reservation[] = plan.lines
      .filter((line) => line.product.supplier === "inventory")
      .map((line) => ({ sku: line.sku, value: line.quote, quantity: line.quantity }));
    if (reservations.length > 0) {
      // Armed before reserving, so that codes reserved by a create that dies halfway still come back.
      this.store.schedule("expire", expiresAt);
      await this.armAlarm();
      const reserved = await io(ORDER_SEAMS.reserveCodes, () => reserveCodes(this.env.DB, id, reservations, expiresAt), this.reset);
      if (!reserved.ok) {
        await cancelExpiry(this.host);
        return failure("out_of_stock", { sku: reserved.sku, quote: Number(reserved.value), quantity: reserved.requested });
      }
      // Codes held count against the balance together with the client's other open orders that hold
      // codes, so that no client holds stock it could not pay for.
      const wallet = this.wallet({ clientId, wallet: request.wallet, walletRegion: plan.walletRegion });
      const held = await io(ORDER_SEAMS.walletHold, async () => (await wallet.hold({ orderId: id, amount: plan.charge, until: expiresAt })) as HoldResult, this.reset);
      if (!held.ok) {
        await this.releaseHeldCodes();
        return held.code === "insufficient_funds"
          ? failure("insufficient_funds", { balance: toAmountNumber(held.balance), required: toAmountNumber(plan.charge) })
          : failure("balance_held", { balance: toAmountNumber(held.balance), held: toAmountNumber(held.held), required: toAmountNumber(plan.charge) });
      }
    } else {
      // An earlier attempt with another body left timers, so it may have reserved codes this one does not
      // need: give them back (one statement, only on such a retry).
      if (this.store.nextDue() !== null) await io(ORDER_SEAMS.releaseCodes, () => releaseCodes(this.env.DB, id), this.reset);
      const balance = new Money(await io(ORDER_SEAMS.walletBalance, () => this.wallet({ clientId, wallet: request.wallet, walletRegion: plan.walletRegion }).balance(), this.reset));
      if (balance.lessThan(plan.charge)) return failure("insufficient_funds", { balance: toAmountNumber(balance), required: toAmountNumber(plan.charge) });
    }
    const order: OrderRecord = {
      id,
      clientId,
      reference: request.reference,
      requestHash,
      webhookUrl: request.webhookUrl ?? null,
      wallet: request.wallet,
      state: "created",
      createdAt: now,
      modifiedAt: now,
      expiresAt,
      lines: plan.lines,
      rates: plan.rates,
      charge: plan.charge,
      retailCharge: plan.retailCharge,
      invoiceStatus: "unpaid",
      chargeIntentAt: null,
      // Only when there is one: an order of a wallet without a region is stored as before regions.
      ...(plan.walletRegion === null ? {} : { walletRegion: plan.walletRegion }),
    };
    await this.save(order, null, { expire: expiresAt });
    return { ok: true, data: { order: JSON.stringify(createView(order, this.livemode)), replayed: false } };
  }

  /** A create that stores no order gives back the codes it (or an earlier attempt) reserved, and its timer. */
  private async releaseHeldCodes(): Promise<void> {
    await io(ORDER_SEAMS.releaseCodes, () => releaseCodes(this.env.DB, orderIdOf(this.ctx.id)), this.reset);
    await cancelExpiry(this.host);
  }

  async confirm(clientId: string): Promise<Result<{ id: string; state: "confirmed" }>> {
    return this.exclusive(() => confirm(this.host, clientId));
  }

  /**
   * The order as retrieve shows it, as JSON: the Worker puts it into the response as is, and a string
   * crosses the RPC boundary far cheaper than the nested view.
   */
  async get(clientId: string): Promise<Result<string>> {
    const order = this.owned(clientId);
    if (order === null) return failure("order_not_found");
    if (this.view?.of !== order) this.view = { of: order, json: JSON.stringify(orderView(order, this.livemode)) };
    return { ok: true, data: this.view.json };
  }

  /** The stored order, for the operator API. */
  async record(): Promise<OrderRecord | null> {
    return this.store.load();
  }

  /** Drops what this instance holds in memory, as an evicted one would; the next call reads storage. */
  async evict(): Promise<void> {
    this.reset();
  }

  /** The order's timers, for the operator API and audits: a live order always has one. */
  async timers(): Promise<Timer[]> {
    return this.store.timers();
  }

  /**
   * Runs the timers that are due. The alarm is set to the earliest timer, so when it fires that one is
   * taken as due even if the clock reads earlier (as when a test runs the alarm at once). A failed alarm
   * write can leave the alarm earlier still: settling, processing and the outbox may run early (each
   * asks the wallet, the suppliers or its outbox how things stand), and expiry checks expiresAt itself.
   * Processing runs here without blocking the object, so that retrieve shows `processing` meanwhile.
   * A failing timer never makes the alarm throw: the platform retries a throwing alarm only 6 times and
   * then drops it, so a failed timer is stored again with capped backoff and retried for as long as it
   * takes. The one throw left is the final alarm write (see runDueTimers).
   */
  override async alarm(): Promise<void> {
    // The alarm that fired is no longer stored: the next armAlarm must write one.
    this.alarmAt = undefined;
    return this.runSerially(() => this.runDueTimers());
  }

  private runSerially(work: () => Promise<void>): Promise<void> {
    const run = this.timerRuns.then(work, work);
    this.timerRuns = run.catch(() => undefined);
    return run;
  }

  /** `also` runs that timer now whatever its due time: confirm starts processing ahead of its safety net. */
  private async runDueTimers(also?: TimerKind): Promise<void> {
    const timers = this.store.timers();
    if (timers.length === 0) return;
    const horizon = Math.max(Date.now(), timers[0]!.dueAt);
    for (const timer of timers) {
      const flow = TIMER_FLOWS[timer.kind];
      if (flow === null || (timer.dueAt > horizon && timer.kind !== also)) continue;
      try {
        const notBefore = await (flow.exclusive ? this.exclusive(() => flow.run(this.host)) : flow.run(this.host));
        if (typeof notBefore === "number") this.store.schedule(timer.kind, notBefore);
        else this.store.completeTimer(timer);
      } catch (error) {
        const failed = this.store.failTimer(timer.kind, Date.now(), String(error));
        const order = this.store.load();
        logFailure(error, { step: `timer.${timer.kind}`, orderId: order?.id ?? orderIdOf(this.ctx.id), clientId: order?.clientId, failures: failed.failures });
      }
    }
    await reportStuck(this.host);
    // Not caught: the alarm that fired is no longer stored, so if arming the next one fails, throwing is
    // the only way to have the platform run this handler again (up to 6 retries with backoff; each runs
    // the due timers again, all idempotent, and arms again). Should every retry fail to arm it, the timers
    // stay stored but unscheduled until a call that arms the alarm (a replayed create) reaches the object.
    await this.armAlarm();
  }

  /** The sandbox's expire-now (POST /sandbox/orders/:orderId/expire): the order's own expiry, at once. */
  async expireNow(clientId: string): Promise<Result<string>> {
    return this.exclusive(() => expireNow(this.host, clientId));
  }
}
