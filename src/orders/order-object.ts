import { DurableObject } from "cloudflare:workers";
import { releaseCodes, reserveCodes, type Reservation } from "../catalogue/inventory-store";
import { applyOutcome, finalState, invoiceStatusAfter, nextAttemptAt } from "../fulfilment/fulfilment";
import { lineIdempotencyKey } from "../fulfilment/supplier";
import { supplierFor } from "../fulfilment/suppliers";
import { failure, type Failure } from "../http/errors";
import { Money } from "../pricing/money";
import { walletName } from "../wallets/ledger";
import { chargeKey, refundKey, voidKey } from "../wallets/ledger-keys";
import type { WalletObject } from "../wallets/wallet-object";
import { orderEvent, WEBHOOK_STATES, type WebhookMessage } from "../webhooks/events";
import type { OrderPlan } from "./create-checks";
import { orderIdOf } from "./order-id";
import type { OrderRecord } from "./order-record";
import { createView, orderView } from "./order-view";
import type { CreateOrderRequest, OrderState } from "./schemas";
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

/** Work the order's one alarm stands for; each kind has at most one due time. */
type TimerKind = "expire" | "process" | "outbox";

const OUTBOX_RETRY_MS = 5_000;
/**
 * Processing starts inside the confirming invocation, right after it answers; the processing timer is set
 * this far ahead only to resume it from the alarm if the object dies first.
 */
const PROCESSING_SAFETY_NET_MS = 30_000;

/**
 * One order. Its single-threaded object serialises create, confirm and get; its SQLite storage holds the
 * order document, the due times behind its alarm (expiry, processing, webhook outbox) and, for an order
 * with a webhookUrl, an outbox of events written in the same transaction as the state change they
 * announce.
 */
export class OrderObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private cached: OrderRecord | null = null;
  /** The retrieve view of the cached order as JSON, built once per stored version. */
  private view: { of: OrderRecord; json: string } | null = null;
  /** Tables this object has, read once per instance: an unknown order id never gets any. */
  private tables: Set<string> | null = null;
  /** Timer runs (the alarm, processing started by confirm) go one after another, never two at once. */
  private timerRuns: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
  }

  private has(table: string): boolean {
    this.tables ??= new Set(
      this.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).toArray().map((row) => row.name),
    );
    return this.tables.has(table);
  }

  // Made on the first create that needs storage, so that probing an unknown order id stores nothing.
  private ensureSchema(): void {
    if (this.has("order_record")) return;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL);
    `);
    this.tables!.add("order_record").add("timers");
  }

  protected load(): OrderRecord | null {
    if (this.cached !== null) return this.cached;
    if (!this.has("order_record")) return null;
    const row = this.sql.exec<{ doc: string }>(`SELECT doc FROM order_record WHERE id = 1`).toArray()[0];
    this.cached = row ? (JSON.parse(row.doc) as OrderRecord) : null;
    return this.cached;
  }

  /**
   * Stores the order, the timers that follow from the change (null clears one) and, when the change is a
   * state a webhook announces, the event for it, all in one transaction: an event or a due time exists
   * exactly when the state change that calls for it does. Arms the alarm afterwards. True when an event
   * was written.
   */
  protected async save(order: OrderRecord, previous: OrderState | null, timers: Partial<Record<TimerKind, number | null>> = {}): Promise<boolean> {
    const message = previous !== order.state && WEBHOOK_STATES.has(order.state) && order.webhookUrl !== null
      ? orderEvent(order, crypto.randomUUID(), Date.now())
      : null;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`INSERT OR REPLACE INTO order_record (id, doc) VALUES (1, ?)`, JSON.stringify(order));
      if (message !== null) {
        if (!this.has("outbox")) {
          this.sql.exec(`CREATE TABLE IF NOT EXISTS outbox (event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0)`);
        }
        this.sql.exec(`INSERT INTO outbox (event_id, message) VALUES (?, ?)`, message.event.id, JSON.stringify(message));
        // Delivery is also a timer, so an event survives the object dying right after this commit.
        this.scheduleSync("outbox", Date.now());
      }
      for (const [kind, at] of Object.entries(timers)) {
        if (at === null) this.sql.exec(`DELETE FROM timers WHERE kind = ?`, kind);
        else this.scheduleSync(kind as TimerKind, at);
      }
    });
    if (message !== null) this.tables!.add("outbox");
    this.cached = order;
    if (message !== null || Object.keys(timers).length > 0) await this.armAlarm();
    return message !== null;
  }

  private scheduleSync(kind: TimerKind, at: number): void {
    this.sql.exec(`INSERT OR REPLACE INTO timers (kind, due_at) VALUES (?, ?)`, kind, at);
  }

  private async armAlarm(): Promise<void> {
    const next = this.sql.exec<{ due: number | null }>(`SELECT MIN(due_at) AS due FROM timers`).one().due;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  private owned(clientId: string): OrderRecord | null {
    const order = this.load();
    return order !== null && order.clientId === clientId ? order : null;
  }

  private wallet(order: Pick<OrderRecord, "clientId" | "wallet">): DurableObjectStub<WalletObject> {
    return this.env.WALLETS.get(this.env.WALLETS.idFromName(walletName(order.clientId, order.wallet)));
  }

  /** Answers the create view as JSON (see get). */
  async create(input: CreateInput): Promise<Result<{ order: string; replayed: boolean }>> {
    return this.ctx.blockConcurrencyWhile(() => this.createExclusive(input));
  }

  /**
   * The reference check comes first, so that a replayed create returns its order whatever the catalogue
   * says now. Stock is then decided by reserving it (atomically, in D1) and the balance is checked last,
   * as DESIGN.md orders the checks; a create refused for its balance gives its codes back.
   */
  private async createExclusive({ clientId, request, requestHash, planJson }: CreateInput): Promise<Result<{ order: string; replayed: boolean }>> {
    const existing = this.load();
    if (existing !== null) {
      if (existing.clientId === clientId && existing.requestHash === requestHash) {
        return { ok: true, data: { order: JSON.stringify(createView(existing)), replayed: true } };
      }
      return failure("reference_already_used", { orderId: existing.id });
    }
    const plan = JSON.parse(planJson) as Failure | ({ ok: true } & OrderPlan);
    if (!plan.ok) return plan;

    const id = orderIdOf(this.ctx.id);
    const now = Date.now();
    const expiresAt = now + Number(this.env.ORDER_TTL_SECONDS) * 1000;
    const reservations: Reservation[] = plan.lines
      .filter((line) => line.product.supplier === "inventory")
      .map((line) => ({ sku: line.sku, value: line.quote, quantity: line.quantity }));
    if (reservations.length > 0) {
      this.ensureSchema();
      // Armed before reserving, so that codes reserved by a create that dies halfway still come back.
      this.scheduleSync("expire", expiresAt);
      await this.armAlarm();
      if (!(await reserveCodes(this.env.DB, id, reservations, expiresAt)).ok) {
        await this.cancelExpiry();
        return failure("out_of_stock");
      }
    }
    const balance = new Money(await this.wallet({ clientId, wallet: request.wallet }).balance());
    if (balance.lessThan(plan.charge)) {
      if (reservations.length > 0) {
        await releaseCodes(this.env.DB, id);
        await this.cancelExpiry();
      }
      return failure("insufficient_funds", { balance: balance.toFixed(), required: plan.charge });
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
    };
    this.ensureSchema();
    await this.save(order, null, { expire: expiresAt });
    return { ok: true, data: { order: JSON.stringify(createView(order)), replayed: false } };
  }

  private async cancelExpiry(): Promise<void> {
    this.sql.exec(`DELETE FROM timers WHERE kind = 'expire'`);
    await this.armAlarm();
  }

  async confirm(clientId: string): Promise<Result<{ id: string; state: "confirmed" }>> {
    return this.ctx.blockConcurrencyWhile(() => this.confirmExclusive(clientId));
  }

  private async confirmExclusive(clientId: string): Promise<Result<{ id: string; state: "confirmed" }>> {
    const order = this.owned(clientId);
    if (order === null) return failure("order_not_found");
    const problem = confirmable(order, Date.now());
    if (problem !== null) return problem;
    // Keyed by order: a confirm retried after a crash finds its charge instead of charging twice.
    const posted = await this.wallet(order).post({
      key: chargeKey(order.id),
      kind: "order_charge",
      amount: order.charge,
      orderId: order.id,
      reason: `order ${order.reference}`,
    });
    if (!posted.ok) {
      return posted.code === "insufficient_funds"
        ? failure("insufficient_funds", { balance: posted.balance, required: order.charge })
        : failure("server_error");
    }
    const now = Date.now();
    const confirmed = { ...transition(order, "confirmed", now), invoiceStatus: "paid" as const };
    // The expiry no longer applies; processing is due, with its timer as the safety net.
    if (await this.save(confirmed, order.state, { expire: null, process: now + PROCESSING_SAFETY_NET_MS })) await this.flushOutbox();
    this.ctx.waitUntil(this.runSerially(() => this.runDueTimers("process")));
    return { ok: true, data: { id: confirmed.id, state: "confirmed" } };
  }

  /**
   * The order as retrieve shows it, as JSON: the Worker puts it into the response as is, and a string
   * crosses the RPC boundary far cheaper than the nested view.
   */
  async get(clientId: string): Promise<Result<string>> {
    const order = this.owned(clientId);
    if (order === null) return failure("order_not_found");
    if (this.view?.of !== order) this.view = { of: order, json: JSON.stringify(orderView(order)) };
    return { ok: true, data: this.view.json };
  }

  /** The stored order, for the operator API. */
  async record(): Promise<OrderRecord | null> {
    return this.load();
  }

  /**
   * Runs the timers that are due. The alarm is always set to the earliest timer, so when it fires that
   * one is due even if the clock reads a little earlier (as when a test runs the alarm at once).
   * Processing runs here without blocking the object, so that retrieve shows `processing` meanwhile;
   * nothing else changes an order once it is confirmed. A handler that throws leaves its timer in place
   * and the alarm is retried.
   */
  override async alarm(): Promise<void> {
    return this.runSerially(() => this.runDueTimers());
  }

  private runSerially(work: () => Promise<void>): Promise<void> {
    const run = this.timerRuns.then(work, work);
    this.timerRuns = run.catch(() => undefined);
    return run;
  }

  /** `also` runs that timer now whatever its due time: confirm starts processing ahead of its safety net. */
  private async runDueTimers(also?: TimerKind): Promise<void> {
    if (!this.has("timers")) return;
    const timers = this.sql.exec<{ kind: TimerKind; due_at: number }>(`SELECT kind, due_at FROM timers ORDER BY due_at`).toArray();
    if (timers.length === 0) return;
    const horizon = Math.max(Date.now(), timers[0]!.due_at);
    for (const timer of timers) {
      if (timer.due_at > horizon && timer.kind !== also) continue;
      await this.runTimer(timer.kind);
      // A handler that rescheduled its own kind keeps the new time.
      this.sql.exec(`DELETE FROM timers WHERE kind = ? AND due_at = ?`, timer.kind, timer.due_at);
    }
    await this.armAlarm();
  }

  protected async runTimer(kind: TimerKind): Promise<void> {
    // Expiry excludes confirm for its whole run: a confirm either finishes first (and expiry finds the
    // order confirmed) or starts after (and finds it rejected).
    if (kind === "expire") await this.ctx.blockConcurrencyWhile(() => this.expire());
    else if (kind === "outbox") await this.flushOutbox();
    else await this.process();
  }

  /**
   * Fulfils a confirmed order line by line. Every supplier call is idempotent per line (sandbox codes are
   * derived from the line, inventory codes are the ones sold to it, the upstream gets an Idempotency-Key)
   * and every refund has its own ledger key, so a run that dies anywhere and starts over issues nothing
   * twice and refunds nothing twice. What an outside supplier hands over is stored at once; lines served
   * here are stored with the end state.
   */
  private async process(): Promise<void> {
    let order = this.load();
    if (order === null) return;
    if (order.state === "confirmed") {
      order = transition(order, "processing", Date.now());
      // Stored when a supplier may take a while, so that retrieve shows it; otherwise the order reaches
      // its end state within this run.
      if (order.lines.some((line) => line.status === "pending" && line.product.supplier === "upstream")) await this.save(order, "confirmed");
    }
    if (order.state !== "processing") return;
    const maxAttempts = Math.max(1, Number(this.env.UPSTREAM_MAX_ATTEMPTS));
    let retryAt: number | null = null;
    for (const [index, line] of order.lines.entries()) {
      if (line.status !== "pending") continue;
      const outcome = await supplierFor(line.product.supplier, this.env).issue({
        orderId: order.id,
        idempotencyKey: lineIdempotencyKey(order.id, line.sku),
        line,
        attempt: line.attempts + 1,
      });
      const updated = applyOutcome(line, outcome, maxAttempts);
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
      const refund = await this.wallet(order).post({
        key: refundKey(order.id, line.sku),
        kind: "order_refund",
        amount: line.charge,
        orderId: order.id,
        reason: `${line.sku} could not be fulfilled`,
      });
      if (!refund.ok) throw new Error(`refund of ${order.id} ${line.sku} refused: ${refund.code}`);
      order = { ...order, lines: order.lines.map((other, at) => (at === index ? { ...line, refunded: line.charge } : other)) };
    }
    const end = finalState(order);
    if (end === null) return;
    const ended = { ...transition(order, end, Date.now()), invoiceStatus: invoiceStatusAfter(order.lines) };
    if (await this.save(ended, order.state)) await this.flushOutbox();
  }

  /**
   * At expiresAt a still-created order becomes rejected: its reserved codes go back on sale and a charge
   * from a confirm that never finished is credited back. Each step is idempotent, so a retried alarm
   * repeats none of them.
   */
  private async expire(): Promise<void> {
    const order = this.load();
    const id = order?.id ?? orderIdOf(this.ctx.id);
    if (order !== null && order.state !== "created") return;
    if (order === null || order.lines.some((line) => line.product.supplier === "inventory")) await releaseCodes(this.env.DB, id);
    if (order === null) return;
    await this.wallet(order).reverse(chargeKey(id), voidKey(id), "order_void", `order ${order.reference} expired`);
    if (await this.save({ ...transition(order, "rejected", Date.now()), invoiceStatus: "void" }, order.state)) await this.flushOutbox();
  }

  /**
   * Hands stored events to the webhook queue and clears the outbox timer; what the queue did not take is
   * tried again shortly.
   */
  protected async flushOutbox(): Promise<void> {
    if (!this.has("outbox")) return;
    const pending = this.sql.exec<{ event_id: string; message: string }>(`SELECT event_id, message FROM outbox WHERE sent = 0`).toArray();
    if (pending.length > 0) {
      try {
        await this.env.WEBHOOKS.sendBatch(pending.map((row) => ({ body: JSON.parse(row.message) as WebhookMessage, contentType: "json" as const })));
      } catch {
        this.scheduleSync("outbox", Date.now() + OUTBOX_RETRY_MS);
        await this.armAlarm();
        return;
      }
      for (const row of pending) this.sql.exec(`UPDATE outbox SET sent = 1 WHERE event_id = ?`, row.event_id);
    }
    this.sql.exec(`DELETE FROM timers WHERE kind = 'outbox'`);
    await this.armAlarm();
  }
}
