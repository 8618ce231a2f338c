/**
 * What a flow of the order sees of its Durable Object (src/orders/order-object.ts): the order's storage,
 * the clock, the one write that stores a change (and arms the alarm), its wallet, its fault seams and the
 * few settings it runs on. Each flow module names the part it uses (`Pick<OrderHost, …>`), so that it reads
 * alone and a unit test can hand it a fake host. `objectHost` builds the object's own, once per instance.
 */
import { writeOrderBooks } from "../books/event-writer";
import { bookWriteOf } from "../books/row-rules";
import type { SupplierKind } from "../catalogue/catalogue-schemas";
import type { Supplier } from "../fulfilment/supplier";
import { supplierFor } from "../fulfilment/suppliers";
import type { Failure } from "../kernel/failures";
import { io } from "../kernel/faults";
import { serviceMode } from "../kernel/service-mode";
import type {
  ChargeStatus,
  FundsResult,
  Hold,
  HoldResult,
  OpenOrder,
  OpenOrderResult,
  ReleaseResult,
  OrderVoid,
  Placement,
  Posting,
  PostingResult,
  WalletMoved,
} from "../wallets/wallet-object";
import { atWallet, postCredit, voidOrderAlong, type Through } from "../wallets/wallet-moves";
import { regionOf } from "../wallets/wallet-registry-store";
import { unknownBudgetMs } from "./processing-rules";
import { orderEvent, WEBHOOK_STATES } from "./order-events";
import { orderIdOf } from "./order-id";
import type { OrderRecord } from "./order-record";
import type { OrderStore } from "./order-store";
import { changesIndexRow, type TimerKind } from "./order-timers";
import { ORDER_SEAMS, type OrderSeam } from "./seams";

/** What an RPC of the order object answers: its data, or the failure the Worker answers with. */
export type Result<T> = { ok: true; data: T } | Failure;

/**
 * The calls an order makes to its wallet object (the RPC answers are these plain values). A wallet that has
 * moved answers hold, post, funds and chargeStatus with `wallet_moved` (wallets/wallet-moves.ts), which the
 * host's `atWallet` follows.
 */
export interface OrderWallet {
  funds(): Promise<FundsResult>;
  openOrder(request: OpenOrder): Promise<OpenOrderResult>;
  hold(request: Hold): Promise<HoldResult>;
  releaseHold(orderId: string): Promise<ReleaseResult>;
  post(posting: Posting): Promise<PostingResult>;
  voidOrder(orderId: string, reason: string): Promise<OrderVoid>;
  chargeStatus(orderId: string): Promise<ChargeStatus>;
}

/** The order's fields that name its wallet object. */
export type WalletOf = Pick<OrderRecord, "clientId" | "wallet" | "walletRegion" | "walletGeneration">;

/** An answer of the order's wallet (never `wallet_moved`), and the placement of the wallet that gave it. */
export interface AtWallet<T> {
  answer: Exclude<T, WalletMoved>;
  placement: Placement;
}

/** The wallet object the order was created against, or the one that holds its charge. */
export function placement(order: Pick<OrderRecord, "walletRegion" | "walletGeneration">): Placement {
  return { generation: order.walletGeneration ?? 0, region: order.walletRegion ?? null };
}

/** The order's fields that name its wallet object: only those that differ from a wallet's first object. */
export function placementFields(at: Placement): Pick<OrderRecord, "walletRegion" | "walletGeneration"> {
  const region = regionOf(at.region);
  return {
    ...(region === null ? {} : { walletRegion: region }),
    ...(at.generation === 0 ? {} : { walletGeneration: at.generation }),
  };
}

/** The order, stored as charged at (or moved on to) `at`. */
export function placedAt(order: OrderRecord, at: Placement): OrderRecord {
  const { walletRegion: _region, walletGeneration: _generation, ...rest } = order;
  return { ...rest, ...placementFields(at) };
}

/** Due times to set (a time) or clear (null) with a write; kinds not named are left as they are. */
export type TimerChanges = Partial<Record<TimerKind, number | null>>;

export interface OrderHost {
  /** The order's id (`ord_…`), known before anything is stored. */
  readonly orderId: string;
  readonly store: OrderStore;
  /** Whether this is a live order: every order of a deployment has the deployment's mode. */
  readonly livemode: boolean;
  /** ORDER_TTL_SECONDS in ms: how long a created order waits for its confirm. */
  readonly ttlMs: number;
  /** UPSTREAM_UNKNOWN_BUDGET_SECONDS in ms: how long a line's outcome may stay unknown before the stuck list. */
  readonly unknownBudgetMs: number;
  readonly db: D1Database;
  readonly queue: Queue;
  /** The time now (unix ms). Flows read the clock here only, once per step between two I/O calls. */
  now(): number;
  /** One I/O call through its fault seam (src/kernel/faults.ts); a fault with reset makes the object forget. */
  io<T>(seam: OrderSeam, call: () => Promise<T>): Promise<T>;
  /**
   * Stores the order with its timer changes and, for a state a webhook announces, the event (one
   * transaction), and for a change the order index shows, its `index` timer; then arms the alarm; answers
   * whether an event was stored.
   */
  save(order: OrderRecord, previous: OrderRecord["state"] | null, timers?: TimerChanges): Promise<boolean>;
  /** Sets the alarm to the earliest stored timer (no write when it already stands there). */
  armAlarm(): Promise<void>;
  /**
   * Calls the order's wallet through `seam`, following it to its successor if it moved: a transfer a moved
   * wallet answers with is delivered to its successor (through the walletMoveIn seam) before the call goes
   * on there. Answers the wallet's answer and the placement of the wallet that gave it.
   */
  atWallet<T>(order: WalletOf, seam: OrderSeam, call: (wallet: OrderWallet) => Promise<T>): Promise<AtWallet<T>>;
  /**
   * Posts an order's credit (a refund) to the wallet that holds its charge; one that has moved since passes
   * the credit on, and the host delivers it to its successor.
   */
  postCredit(order: WalletOf, seam: OrderSeam, posting: Posting): Promise<PostingResult>;
  /**
   * Voids the order in the wallet it was created against and every wallet it moved to since (a charge cut
   * off on its way may have met the move and landed at a successor), delivering any credit-back passed on.
   */
  voidOrderAlong(order: WalletOf & Pick<OrderRecord, "id">, seam: OrderSeam, reason: string): Promise<void>;
  supplier(kind: SupplierKind): Supplier;
  /** Writes `order`'s row to its client's books at `version`; answers the shard's rows written (the flow's io() has its seam). */
  writeBooks(order: OrderRecord, version: number): Promise<number>;
  /**
   * Runs the processing timer once this invocation has answered, after any timer run under way; its
   * stored due time stays as the safety net should the object die first.
   */
  processSoon(order: OrderRecord): void;
}

/** What the host reaches back into the object for: its memory, its alarm and its timer runs. */
export interface HostShell {
  /** Forgets what the instance holds in memory (a fault test's reset). */
  reset: () => void;
  armAlarm(): Promise<void>;
  processSoon(order: OrderRecord): void;
}

/** The host of the order object over `store`; settings are read from `env` when a flow asks, as before. */
export function objectHost(ctx: DurableObjectState, env: Env, store: OrderStore, shell: HostShell): OrderHost {
  const livemode = serviceMode(env) === "live";
  // Each wallet call through its seam, and each transfer a moved wallet answers with through walletMoveIn.
  const through =
    (seam: OrderSeam): Through =>
    (step, run) =>
      io(step === "call" ? seam : ORDER_SEAMS.walletMoveIn, run, shell.reset);
  return {
    get orderId() {
      return orderIdOf(ctx.id);
    },
    store,
    livemode,
    get ttlMs() {
      return Number(env.ORDER_TTL_SECONDS) * 1000;
    },
    get unknownBudgetMs() {
      return unknownBudgetMs(env.UPSTREAM_UNKNOWN_BUDGET_SECONDS);
    },
    db: env.DB,
    queue: env.WEBHOOKS,
    now: () => Date.now(),
    io: (seam, call) => io(seam, call, shell.reset),
    save: async (order, previous, timers = {}) => {
      // Every announced change is an event of the client's (its books and account endpoints get it); it
      // goes to the queue only for an order with a webhookUrl.
      const announced = previous !== order.state && WEBHOOK_STATES.has(order.state);
      const event = announced ? orderEvent(order, crypto.randomUUID(), Date.now(), livemode) : null;
      const indexed = changesIndexRow(store.load(), order);
      store.save(order, timers, event, indexed);
      if (event !== null || indexed || Object.keys(timers).length > 0) await shell.armAlarm();
      return event !== null && order.webhookUrl !== null;
    },
    armAlarm: () => shell.armAlarm(),
    // RPC answers arrive typed as serialised copies; they are the same plain data the wallet returned.
    atWallet: <T>(order: WalletOf, seam: OrderSeam, call: (wallet: OrderWallet) => Promise<T>) =>
      atWallet<T>(env, {
        clientId: order.clientId,
        currency: order.wallet,
        start: placement(order),
        call: (wallet) => call(wallet as unknown as OrderWallet),
        through: through(seam),
      }),
    postCredit: (order, seam, posting) =>
      postCredit(env, {
        clientId: order.clientId,
        currency: order.wallet,
        at: placement(order),
        posting,
        through: through(seam),
      }),
    voidOrderAlong: (order, seam, reason) =>
      voidOrderAlong(env, {
        clientId: order.clientId,
        currency: order.wallet,
        start: placement(order),
        orderId: order.id,
        reason,
        through: through(seam),
      }),
    supplier: (kind) => supplierFor(kind, env),
    writeBooks: (order, version) => writeOrderBooks(env.BOOKS, bookWriteOf(order, version), store.allEvents()),
    processSoon: (order) => shell.processSoon(order),
  };
}
