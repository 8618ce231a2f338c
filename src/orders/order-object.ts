import { DurableObject } from "cloudflare:workers";
import { releaseCodes, reserveCodes, type Reservation } from "../inventory/reservations";
import { lineIdempotencyKey } from "../fulfilment/supplier";
import { supplierFor } from "../fulfilment/suppliers";
import { failure, type Failure } from "../http/errors";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { serviceMode } from "../kernel/service-mode";
import { Money, toAmountNumber } from "../pricing/money";
import { chargeKey, refundKey } from "../wallets/ledger-keys";
import type { ChargeStatus, FundsResult, HoldResult, Placement, PostingResult, WalletObject } from "../wallets/wallet-object";
import { atWallet, postCredit, voidOrderAlong, type Through } from "../wallets/wallet-moves";
import { regionOf } from "../wallets/wallet-registry";
import type { WebhookMessage } from "../webhooks/events";
import type { OrderPlan } from "./order-plan";
import { applyOutcome, finalState, invoiceStatusAfter, linesPastBudget, nextAttemptAt, unknownBudgetMs } from "./fulfilment-rules";
import { orderEvent, WEBHOOK_STATES } from "./order-events";
import { orderIdOf } from "./order-id";
import type { OrderRecord } from "./order-record";
import { OrderStore } from "./order-store";
import { sameReport, type StuckReport, type Timer, type TimerKind } from "./order-timers";
import { createView, orderView } from "./order-view";
import type { CreateOrderRequest } from "./requests";
import { ORDER_SEAMS, supplierSeam } from "./seams";
import { clearTimerFailure, recordTimerFailure } from "./timer-failures";
import { TIMER_FAILURES_REPORTED_AFTER } from "./timer-policy";
import { confirmable, transition } from "./transitions";

export type Result<T> = { ok: true; data: T } | Failure;

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
 * How soon a confirm cut off between its intent and the wallet's answer is settled by the alarm. The
 * processing timer of a completed confirmation takes the same due time: processing starts inside the
 * confirming invocation right after it answers, so that timer only resumes it if the object dies first,
 * and the alarm armed for settling already stands at that time (no second alarm write per confirm).
 */
const SETTLE_AFTER_MS = 5_000;

/**
 * One order: the RPC surface of its Durable Object. Its single-threaded object serialises create, confirm
 * and get; its storage (src/orders/order-store.ts) holds the order document, the due times behind its
 * one alarm (expiry, settling a cut-off confirm, processing, webhook outbox, retrying a stuck-list write)
 * and the outbox of events written in the same transaction as the state change they announce. Every I/O call between two writes
 * goes through a fault seam (src/orders/seams.ts).
 */
export class OrderObject extends DurableObject<Env> {
  private readonly store: OrderStore;
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
  private async save(order: OrderRecord, previous: OrderRecord["state"] | null, timers: Partial<Record<TimerKind, number | null>> = {}): Promise<boolean> {
    const event: WebhookMessage | null =
      previous !== order.state && WEBHOOK_STATES.has(order.state) && order.webhookUrl !== null ? orderEvent(order, crypto.randomUUID(), Date.now(), this.livemode) : null;
    this.store.save(order, timers, event);
    if (event !== null || Object.keys(timers).length > 0) await this.armAlarm();
    return event !== null;
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

  /** The wallet object the order was created against, or the one that holds its charge. */
  private placement(order: Pick<OrderRecord, "walletRegion" | "walletGeneration">): Placement {
    return { generation: order.walletGeneration ?? 0, region: order.walletRegion ?? null };
  }

  /**
   * How the order's wallet calls go through their seams: each call through `seam`, and a transfer a moved
   * wallet answers with (delivered to its successor before the call goes on there) through walletMoveIn.
   */
  private through(seam: string): Through {
    return (step, run) => io(step === "call" ? seam : ORDER_SEAMS.walletMoveIn, run, this.reset);
  }

  /**
   * Calls the order's wallet, following it to its successor if it moved (wallets/wallet-moves.ts): answers
   * the wallet's answer and the placement of the wallet that gave it.
   */
  private atWallet<T>(
    order: Pick<OrderRecord, "clientId" | "wallet" | "walletRegion" | "walletGeneration">,
    seam: string,
    call: (wallet: DurableObjectStub<WalletObject>) => Promise<unknown>,
  ) {
    return atWallet<T>(this.env, order.clientId, order.wallet, this.placement(order), call, this.through(seam));
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
    // The wallet the plan names (the registry's, as the snapshot read it); a create that meets it moved is
    // stored against its successor.
    const planned = { clientId, wallet: request.wallet, walletRegion: plan.walletRegion, walletGeneration: plan.walletGeneration ?? 0 };
    let placement: Placement = this.placement(planned);
    if (reservations.length > 0) {
      // Armed before reserving, so that codes reserved by a create that dies halfway still come back.
      this.store.schedule("expire", expiresAt);
      await this.armAlarm();
      const reserved = await io(ORDER_SEAMS.reserveCodes, () => reserveCodes(this.env.DB, id, reservations, expiresAt), this.reset);
      if (!reserved.ok) {
        await this.cancelExpiry();
        return failure("out_of_stock", { sku: reserved.sku, quote: Number(reserved.value), quantity: reserved.requested });
      }
      // Codes held count against the balance together with the client's other open orders that hold
      // codes, so that no client holds stock it could not pay for.
      const held = await this.atWallet<HoldResult>(planned, ORDER_SEAMS.walletHold, (wallet) => wallet.hold({ orderId: id, amount: plan.charge, until: expiresAt }));
      placement = held.placement;
      if (!held.answer.ok) {
        await this.releaseHeldCodes();
        const refused = held.answer;
        return refused.code === "insufficient_funds"
          ? failure("insufficient_funds", { balance: toAmountNumber(refused.balance), required: toAmountNumber(plan.charge) })
          : failure("balance_held", { balance: toAmountNumber(refused.balance), held: toAmountNumber(refused.held), required: toAmountNumber(plan.charge) });
      }
    } else {
      // An earlier attempt with another body left timers, so it may have reserved codes this one does not
      // need: give them back (one statement, only on such a retry).
      if (this.store.nextDue() !== null) await io(ORDER_SEAMS.releaseCodes, () => releaseCodes(this.env.DB, id), this.reset);
      const funds = await this.atWallet<FundsResult>(planned, ORDER_SEAMS.walletBalance, (wallet) => wallet.funds());
      placement = funds.placement;
      const balance = new Money(funds.answer.balance);
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
      // Only when there is one: an order of a wallet without a region, never moved, is stored as before.
      ...this.placementFields(placement),
    };
    await this.save(order, null, { expire: expiresAt });
    return { ok: true, data: { order: JSON.stringify(createView(order, this.livemode)), replayed: false } };
  }

  /** The order's fields that name its wallet object: only those that differ from a wallet's first object. */
  private placementFields(placement: Placement): Pick<OrderRecord, "walletRegion" | "walletGeneration"> {
    const region = regionOf(placement.region);
    return { ...(region === null ? {} : { walletRegion: region }), ...(placement.generation === 0 ? {} : { walletGeneration: placement.generation }) };
  }

  /** The order, stored as charged at (or moved on to) `placement`. */
  private at(order: OrderRecord, placement: Placement): OrderRecord {
    const { walletRegion: _region, walletGeneration: _generation, ...rest } = order;
    return { ...rest, ...this.placementFields(placement) };
  }

  /** A create that stores no order gives back the codes it (or an earlier attempt) reserved, and its timer. */
  private async releaseHeldCodes(): Promise<void> {
    await io(ORDER_SEAMS.releaseCodes, () => releaseCodes(this.env.DB, orderIdOf(this.ctx.id)), this.reset);
    await this.cancelExpiry();
  }

  private async cancelExpiry(): Promise<void> {
    this.store.clearTimer("expire");
    await this.armAlarm();
  }

  async confirm(clientId: string): Promise<Result<{ id: string; state: "confirmed" }>> {
    return this.exclusive(() => this.confirmExclusive(clientId));
  }

  /**
   * Records the intent to charge before calling the wallet, so that a confirm cut off after the charge
   * landed is settled within seconds by the alarm instead of leaving the order unpaid-looking with its
   * money taken. The charge is keyed by order: a retried confirm finds it instead of charging twice.
   */
  private async confirmExclusive(clientId: string): Promise<Result<{ id: string; state: "confirmed" }>> {
    const order = this.owned(clientId);
    if (order === null) return failure("order_not_found");
    const problem = confirmable(order, Date.now());
    if (problem !== null) return problem;
    const intent: OrderRecord = { ...order, chargeIntentAt: Date.now() };
    await this.save(intent, order.state, { settle: Date.now() + SETTLE_AFTER_MS });
    // A charge that meets the wallet moved goes on to its successor; the order then records where it landed.
    const charged = await this.atWallet<PostingResult>(order, ORDER_SEAMS.walletCharge, (wallet) =>
      wallet.post({ key: chargeKey(order.id), kind: "order_charge", amount: order.charge, orderId: order.id, reason: `order ${order.reference}` }),
    );
    const posted = charged.answer;
    if (!posted.ok) {
      await this.save({ ...order, chargeIntentAt: null }, order.state, { settle: null });
      if (posted.code === "insufficient_funds") {
        return failure("insufficient_funds", { balance: toAmountNumber(posted.balance), required: toAmountNumber(order.charge) });
      }
      // The order expired and was voided while this confirm was on its way: it can never be charged.
      if (posted.code === "order_voided") return failure("order_expired");
      return failure("server_error");
    }
    await this.completeConfirmation(this.at(intent, charged.placement));
    return { ok: true, data: { id: order.id, state: "confirmed" } };
  }

  /** The charge is in the ledger: the order is confirmed, and processing starts (its timer the safety net). */
  private async completeConfirmation(order: OrderRecord): Promise<void> {
    const now = Date.now();
    const confirmed: OrderRecord = { ...transition(order, "confirmed", now), invoiceStatus: "paid", chargeIntentAt: null };
    const safetyNet = (order.chargeIntentAt ?? now) + SETTLE_AFTER_MS;
    if (await this.save(confirmed, order.state, { expire: null, settle: null, process: safetyNet })) await this.tryFlushOutbox();
    // Not an alarm: nothing retries a throw of this run (its final alarm write failed), so it is logged.
    // The alarm stored with the confirmation (at the safety net), or moved since by a write that
    // succeeded, still stands and runs what is left.
    this.ctx.waitUntil(
      this.runSerially(() => this.runDueTimers("process")).catch((error: unknown) => logFailure(error, { step: "confirm.process", orderId: order.id, clientId: order.clientId })),
    );
  }

  /**
   * A confirm was cut off between its intent and storing the wallet's answer: the wallet decides. Charged:
   * the confirmation completes. Not charged: the order is plainly `created` again, to be confirmed anew.
   *
   * Once expiresAt has passed, settling confirms nothing: a confirm retried now is answered 419, so a
   * confirmation here could contradict what the client was told. The order is left to its expiry timer
   * (stored for as long as the order is `created`), whose wallet void credits back a charge that landed
   * and refuses it for good.
   */
  private async settle(): Promise<void> {
    const order = this.store.load();
    if (order === null || order.state !== "created" || !order.chargeIntentAt) return;
    if (Date.now() >= order.expiresAt) return;
    // Asked along the wallet's moves: a charge that met the wallet moved landed at its successor.
    const looked = await this.atWallet<ChargeStatus>(order, ORDER_SEAMS.chargeLookup, (wallet) => wallet.chargeStatus(order.id));
    const charge = looked.answer;
    // Voided is final, even where the charge landed first (the void credited it back): an expiry that died
    // before storing `rejected`, seen from a clock that reads before expiresAt. The rejection completes.
    if (charge.status === "voided") await this.reject(order);
    else if (charge.status === "charged") await this.completeConfirmation(this.at(order, looked.placement));
    else await this.save({ ...order, chargeIntentAt: null }, order.state, { settle: null });
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
      // The report timer only brings the alarm back: every run ends with the report (below).
      if (timer.kind === "report" || (timer.dueAt > horizon && timer.kind !== also)) continue;
      try {
        const notBefore = await this.runTimer(timer.kind);
        if (notBefore !== null) this.store.schedule(timer.kind, notBefore);
        else this.store.completeTimer(timer);
      } catch (error) {
        const failed = this.store.failTimer(timer.kind, Date.now(), String(error));
        const order = this.store.load();
        logFailure(error, { step: `timer.${timer.kind}`, orderId: order?.id ?? orderIdOf(this.ctx.id), clientId: order?.clientId, failures: failed.failures });
      }
    }
    await this.reportStuck();
    // Not caught: the alarm that fired is no longer stored, so if arming the next one fails, throwing is
    // the only way to have the platform run this handler again (up to 6 retries with backoff; each runs
    // the due timers again, all idempotent, and arms again). Should every retry fail to arm it, the timers
    // stay stored but unscheduled until a call that arms the alarm (a replayed create) reaches the object.
    await this.armAlarm();
  }

  /** Runs one timer; a time returned means it ran too early and is due again then (nothing was done). */
  private async runTimer(kind: TimerKind): Promise<number | null> {
    // Expiry and settling exclude confirm for their whole run: a confirm either finishes first or starts
    // after and finds the outcome.
    if (kind === "expire") return this.exclusive(() => this.expire());
    if (kind === "settle") await this.exclusive(() => this.settle());
    else if (kind === "outbox") await this.flushOutbox();
    else if (kind === "process") await this.process();
    return null;
  }

  /**
   * Brings the operator's stuck list (D1 timer_failures, one row per order) in line with the order: the
   * row names its upstream lines whose outcome has been unknown for UPSTREAM_UNKNOWN_BUDGET_SECONDS or
   * more (timer `supplier`: they need a person, and the order keeps asking meanwhile), or else the timer
   * that has failed most often in a row, once that is at least TIMER_FAILURES_REPORTED_AFTER times; there
   * is no row while neither holds, however it went away (the line was settled, the timer succeeded, a
   * confirm cleared it). The document keeps what the list was last given, so a run that changes nothing
   * there writes nothing to D1. A report that fails is retried by the `report` timer, so that a row is not
   * left behind, or missing, when the order comes to rest.
   */
  private async reportStuck(): Promise<void> {
    const order = this.store.load();
    const now = Date.now();
    const unknown = order?.state === "processing" ? linesPastBudget(order.lines, unknownBudgetMs(this.env.UPSTREAM_UNKNOWN_BUDGET_SECONDS), now) : [];
    const failing = unknown.length > 0 ? null : this.store.worstFailing(TIMER_FAILURES_REPORTED_AFTER);
    const wanted: StuckReport | null =
      unknown.length > 0
        ? { timer: "supplier", failures: unknown[0]!.attempts, skus: unknown.map((line) => line.sku) }
        : failing === null
          ? null
          : { timer: failing.kind, failures: failing.failures };
    const reported = this.store.reported();
    if (reported !== undefined && sameReport(reported, wanted)) {
      // The list already shows what it should: a retry of an earlier write that failed has nothing left to
      // write, and must not stay behind (it would keep the alarm firing for an order at rest).
      this.store.clearTimer("report");
      return;
    }
    const orderId = order?.id ?? orderIdOf(this.ctx.id);
    const row =
      wanted === null
        ? null
        : unknown.length > 0
          ? {
              lastError: unknown.map((line) => `${line.sku}: ${line.failureReason ?? "no answer"}`).join("; "),
              firstFailedAt: unknown[0]!.unknownSince!,
              nextAttemptAt: this.store.timers().find((timer) => timer.kind === "process")?.dueAt ?? now,
            }
          : { lastError: failing!.lastError ?? "", nextAttemptAt: failing!.dueAt };
    try {
      await io(
        ORDER_SEAMS.timerReport,
        () =>
          wanted === null || row === null
            ? clearTimerFailure(this.env.DB, orderId)
            : recordTimerFailure(this.env.DB, { orderId, clientId: order?.clientId ?? "", timer: wanted.timer, skus: wanted.skus, failures: wanted.failures, lastFailedAt: now, ...row }),
        this.reset,
      );
      this.store.markReported(wanted);
    } catch (error) {
      // Only the report failed; the timers themselves are stored and retried either way.
      const failed = this.store.failTimer("report", Date.now(), String(error));
      logFailure(error, { step: "timer.report", orderId, clientId: order?.clientId, failures: failed.failures });
    }
  }

  /**
   * Fulfils a confirmed order line by line. Every supplier call is idempotent per line (sandbox codes are
   * derived from the line, inventory codes are the ones sold to it, the upstream gets an Idempotency-Key)
   * and every refund has its own ledger key, so a run that dies anywhere and starts over issues nothing
   * twice and refunds nothing twice. What an outside supplier hands over is stored at once; lines served
   * here are stored with the end state.
   */
  private async process(): Promise<void> {
    let order = this.store.load();
    if (order === null) return;
    if (order.state === "confirmed") {
      order = transition(order, "processing", Date.now());
      // Stored when a supplier may take a while, so that retrieve shows it; otherwise the order reaches
      // its end state within this run.
      if (order.lines.some((line) => line.status === "pending" && line.product.supplier === "upstream")) await this.save(order, "confirmed");
    }
    if (order.state !== "processing") return;
    let retryAt: number | null = null;
    for (const [index, line] of order.lines.entries()) {
      if (line.status !== "pending") continue;
      const request = { orderId: order.id, idempotencyKey: lineIdempotencyKey(order.id, line.sku), line, attempt: line.attempts + 1 };
      const outcome = await io(supplierSeam(line.product.supplier), () => supplierFor(line.product.supplier, this.env).issue(request), this.reset);
      // An unknown outcome leaves the line pending (never failed, never refunded): it is asked again with the
      // same key until the supplier settles it; past its budget the stuck list shows it (reportStuck).
      const updated = applyOutcome(line, outcome, Date.now());
      order = { ...order, lines: order.lines.map((other, at) => (at === index ? updated : other)), modifiedAt: Date.now() };
      if (line.product.supplier === "upstream") await this.save(order, order.state);
      if (updated.status === "pending") retryAt = Math.min(retryAt ?? Infinity, nextAttemptAt(updated, Date.now()));
    }
    if (retryAt !== null) {
      await this.save(order, order.state, { process: retryAt });
      return;
    }
    for (const [index, line] of order.lines.entries()) {
      if (line.status !== "failed" || !new Money(line.refunded).isZero()) continue;
      const current = order;
      // To the wallet that holds the charge; one that has moved since passes the credit on to its successor.
      const refund = await postCredit(
        this.env,
        current.clientId,
        current.wallet,
        this.placement(current),
        { key: refundKey(current.id, line.sku), kind: "order_refund", amount: line.charge, orderId: current.id, reason: `${line.sku} could not be fulfilled` },
        this.through(ORDER_SEAMS.walletRefund),
      );
      if (!refund.ok) throw new Error(`refund of ${order.id} ${line.sku} refused: ${refund.code}`);
      order = { ...order, lines: order.lines.map((other, at) => (at === index ? { ...line, refunded: line.charge } : other)) };
    }
    // A done line holds nothing: codes a failed inventory line had reserved go back on sale.
    const current = order;
    if (current.lines.some((line) => line.product.supplier === "inventory")) {
      await io(ORDER_SEAMS.releaseCodes, () => releaseCodes(this.env.DB, current.id), this.reset);
    }
    const end = finalState(order);
    if (end === null) return;
    const ended = { ...transition(order, end, Date.now()), invoiceStatus: invoiceStatusAfter(order.lines) };
    // The processing timer goes with the end state, in the same write.
    if (await this.save(ended, order.state, { process: null })) await this.tryFlushOutbox();
  }

  /**
   * At expiresAt a still-created order becomes rejected: its reserved codes go back on sale and the wallet
   * voids the order for good (crediting back a charge from a confirm that never finished, and refusing any
   * charge that arrives later). Each step is idempotent, so a retried timer repeats none of them.
   *
   * Never before expiresAt: the alarm may fire early for this timer (it stands at the earliest due time
   * stored, and a failed alarm write can leave it at an earlier one, such as a settle that was cleared
   * since), and a live order must not be rejected ahead of the TTL its client was given. Then nothing is
   * done and the expiry is due again at expiresAt.
   */
  private async expire(): Promise<number | null> {
    const order = this.store.load();
    const id = order?.id ?? orderIdOf(this.ctx.id);
    if (order !== null && order.state !== "created") return null;
    if (order !== null && Date.now() < order.expiresAt) return order.expiresAt;
    if (order === null || order.lines.some((line) => line.product.supplier === "inventory")) {
      await io(ORDER_SEAMS.releaseCodes, () => releaseCodes(this.env.DB, id), this.reset);
    }
    if (order === null) return null;
    await this.reject(order);
    return null;
  }

  /** The wallet voids the order for good (idempotently), and the order is stored `rejected`. */
  private async reject(order: OrderRecord): Promise<void> {
    // In the wallet the order was created against and every wallet it moved to since: a charge cut off on
    // its way may have met the move and landed at a successor.
    await voidOrderAlong(this.env, order.clientId, order.wallet, this.placement(order), order.id, `order ${order.reference} expired`, this.through(ORDER_SEAMS.walletVoid));
    const rejected: OrderRecord = { ...transition(order, "rejected", Date.now()), invoiceStatus: "void", chargeIntentAt: null };
    if (await this.save(rejected, order.state, { settle: null, expire: null })) await this.tryFlushOutbox();
  }

  /**
   * The sandbox's expire-now (POST /sandbox/orders/:orderId/expire): the client's own `created` order is
   * expired at once by the expiry path itself. Its expiresAt is moved to now and stored with the expiry
   * timer due now before anything else, so an object that dies anywhere after leaves an order the alarm
   * expires as it would have at its TTL; then expire() runs here (release, void, rejected, event). Asked
   * again, an order it already rejected answers as it is, so a retry after a lost reply succeeds.
   * Another client's order is order_not_found, like an unknown one; a confirmed order cannot expire (409).
   */
  async expireNow(clientId: string): Promise<Result<string>> {
    return this.exclusive(async () => {
      const order = this.owned(clientId);
      if (order === null) return failure("order_not_found");
      if (order.state === "created") {
        const now = Date.now();
        const due: OrderRecord = { ...order, expiresAt: Math.min(order.expiresAt, now), modifiedAt: now };
        await this.save(due, order.state, { expire: due.expiresAt });
        try {
          await this.expire();
        } catch (error) {
          logFailure(error, { step: "sandbox.expire-now", orderId: order.id, clientId });
          return failure("server_error", { reason: "the order's expiry is under way and completes by itself; retry to see it" });
        }
        await this.cancelExpiry();
      }
      const current = this.store.load()!;
      if (current.state !== "rejected") return failure("order_already_confirmed", { state: current.state });
      return { ok: true, data: JSON.stringify(orderView(current, this.livemode)) };
    });
  }

  /** Hands stored events to the webhook queue; a failure leaves them for the outbox timer's retries. */
  private async flushOutbox(): Promise<void> {
    const pending = this.store.pendingEvents();
    if (pending.length > 0) {
      await io(ORDER_SEAMS.queueSend, () => this.env.WEBHOOKS.sendBatch(pending.map(({ message }) => ({ body: message, contentType: "json" as const }))), this.reset);
      this.store.markSent(pending.map(({ eventId }) => eventId));
    }
    this.store.clearTimer("outbox");
  }

  /** A flush right after a state change; what fails here the outbox timer (set with the event) retries. */
  private async tryFlushOutbox(): Promise<void> {
    try {
      await this.flushOutbox();
      await this.armAlarm();
    } catch (error) {
      const order = this.store.load();
      logFailure(error, { step: "outbox.flush", orderId: order?.id, clientId: order?.clientId });
    }
  }
}
