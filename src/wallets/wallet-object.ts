import { DurableObject } from "cloudflare:workers";
import type { LedgerEntry } from "./ledger";
import {
  audit,
  chargeStatus,
  funds,
  hold,
  moveIn,
  openOrder,
  moveOut,
  post,
  releaseHold,
  transfers,
  voidOrder,
  type ChargeStatus,
  type FundsResult,
  type Hold,
  type HoldResult,
  type MoveInResult,
  type OpenOrder,
  type OpenOrderResult,
  type OrderVoid,
  type Placement,
  type Posting,
  type PostingResult,
  type ReleaseResult,
  type Transfer,
  type WalletAudit,
} from "./postings";
import { WalletStore } from "./wallet-store";
import {
  exportLedger,
  restoreLedger,
  type ExportedEntry,
  type LedgerExport,
  type RestoreResult,
} from "./ledger-backup";
import { serviceMode } from "../kernel/service-mode";
import { LEDGER_DAY_PAGE, ledgerDay } from "./ledger-day-flow";
import { eventsOfChange, handOver, setThreshold, WalletEventStore, type Announce } from "./wallet-events";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { WALLET_EVENT_SEAMS } from "./seams";

/** How soon an alarm whose hand-over to the books failed runs again. */
const EVENTS_RETRY_MS = 30_000;
import type { LedgerDayPage } from "./ledger-day-rules";

export type {
  ChargeStatus,
  FundsResult,
  Hold,
  HoldResult,
  MoveInResult,
  OpenBound,
  OpenOrder,
  OpenOrderResult,
  OrderVoid,
  Placement,
  Posting,
  PostingResult,
  ReleaseResult,
  Transfer,
  WalletAudit,
  WalletMoved,
} from "./postings";
export type { LedgerExport, RestoreResult } from "./ledger-backup";
export type { LedgerDayPage } from "./ledger-day-rules";

/**
 * One wallet of one client in one currency: the RPC surface only. Its storage is wallet-store.ts (the
 * versioned schema, and a store for the ledger, the orders' holds and the moves) and the rules in postings.ts. Every balance change is a ledger entry
 * written in the same synchronous SQLite step that reads the balance, so no two debits can interleave.
 */
export class WalletObject extends DurableObject<Env> {
  private opened: WalletStore | null = null;

  private eventStore: WalletEventStore | null = null;

  /** Opened on first use (not in the constructor), once per instance: the schema migrates then. */
  private get store(): WalletStore {
    this.opened ??= new WalletStore(this.ctx.storage);
    return this.opened;
  }

  /** The alert and the events' outbox (wallet-events.ts), beside the ledger (opened first: it migrates). */
  private get walletEvents(): WalletEventStore {
    void this.store;
    this.eventStore ??= new WalletEventStore(this.ctx.storage.sql);
    return this.eventStore;
  }

  /**
   * Runs a change of the balance and writes its events in the same transaction, the alarm that hands them
   * to the client's books too: a change is never stored without its events, nor an event without its change.
   */
  private withEvents<T>(change: () => { result: T; funded: Parameters<typeof eventsOfChange>[2] }): T {
    // Opened (and migrated) outside the transaction: a change that throws must not roll back the schema.
    const [ledger, events] = [this.store.ledger, this.walletEvents];
    return this.ctx.storage.transactionSync(() => {
      const { result, funded } = change();
      const now = Date.now();
      const live = serviceMode(this.env) === "live";
      if (eventsOfChange(events, ledger.balance(), funded, now, live)) void this.ctx.storage.setAlarm(now);
      return result;
    });
  }

  /** GET /health's probe: the object answers, and its ledger is not opened (no storage is written). */
  async ping(): Promise<"ok"> {
    return "ok";
  }

  async balance(): Promise<string> {
    return this.store.ledger.balance().toFixed();
  }

  /** The balance an order's create checks, or, once the wallet has moved, where it went. */
  async funds(): Promise<FundsResult> {
    const result = funds(this.store);
    // GET /wallets shows the client's low-balance threshold from the same call.
    if (!result.ok) return result;
    const threshold = this.walletEvents.alert()?.threshold;
    return threshold === undefined ? result : { ...result, lowBalanceThreshold: threshold };
  }

  /** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
  async post(posting: Posting): Promise<PostingResult> {
    return this.withEvents(() => {
      const result = post(this.store, posting);
      const credit = posting.kind === "top_up" || posting.kind === "adjustment";
      const announce = posting.announce ?? null;
      const funded =
        result.ok && !result.replayed && credit && announce !== null ? { entry: result.entry, announce } : null;
      return { result, funded };
    });
  }

  /**
   * Sets the client's low-balance threshold (a decimal string the route has checked), or clears it with
   * null; answers it. Armed when the balance is at or above it.
   */
  async setAlert(owner: Announce, threshold: string | null): Promise<{ threshold: string | null }> {
    const alert = setThreshold(this.walletEvents, owner, threshold, this.store.ledger.balance());
    return { threshold: alert?.threshold ?? null };
  }

  /**
   * Hands the waiting events to the client's books (wallet-events.ts); a failure is logged and tried
   * again EVENTS_RETRY_MS later, with nothing deleted.
   */
  override async alarm(): Promise<void> {
    try {
      const more = await handOver(this.walletEvents, this.env.BOOKS, (call) => io(WALLET_EVENT_SEAMS.hand, call));
      if (more) await this.ctx.storage.setAlarm(Date.now());
    } catch (error) {
      logFailure(error, { step: WALLET_EVENT_SEAMS.hand });
      await this.ctx.storage.setAlarm(Date.now() + EVENTS_RETRY_MS);
    }
  }

  /** An open order that reserves no codes: its balance checked, its slot among the client's open orders taken. */
  async openOrder(request: OpenOrder): Promise<OpenOrderResult> {
    return openOrder(this.store, request, Date.now());
  }

  /** Holds an open order's amount and codes before it reserves stock (see postings.ts). */
  async hold(request: Hold): Promise<HoldResult> {
    return hold(this.store, request);
  }

  /** Lets go of the hold of an order whose create was refused after it was placed (out of stock). */
  async releaseHold(orderId: string): Promise<ReleaseResult> {
    return releaseHold(this.store, orderId);
  }

  /**
   * Voids an order for good: marks it voided and credits back its charge if one landed; idempotent. After
   * it, every charge of the order answers `order_voided`.
   */
  async voidOrder(orderId: string, reason: string): Promise<OrderVoid> {
    // A credit back can lift the balance over the threshold again: the alert re-arms in its transaction.
    return this.withEvents(() => ({ result: voidOrder(this.store, orderId, reason, Date.now()), funded: null }));
  }

  /** Whether the order was charged, not charged, or voided (final): what settling a cut-off confirm asks. */
  async chargeStatus(orderId: string): Promise<ChargeStatus> {
    return chargeStatus(this.store, orderId);
  }

  /**
   * Moves this wallet to its successor (postings.ts): marks it moved, and transfers its whole balance and
   * its open orders' holds out under the move's key, in one step; answers every transfer it made, the
   * move first. Idempotent.
   */
  async moveOut(move: { key: string; to: Placement; reason: string }): Promise<Transfer[]> {
    return moveOut(this.store, move, Date.now());
  }

  /** Takes in a transfer from the predecessor, once per key (passing it on if this wallet has moved too). */
  async moveIn(transfer: Transfer, reason: string): Promise<MoveInResult> {
    return moveIn(this.store, transfer, reason, Date.now());
  }

  /** Every transfer this wallet made to its successor, oldest first (none unless it moved). */
  async transfers(): Promise<Transfer[]> {
    return transfers(this.store);
  }

  /** The balance at each of `times` (null before the first entry): the console's balance over time. */
  async balancesAt(times: number[]): Promise<(string | null)[]> {
    return this.store.ledger.balancesAt(times);
  }

  async entries(afterSeq = 0, limit = 100): Promise<LedgerEntry[]> {
    return this.store.ledger.page(afterSeq, limit);
  }

  /** The seq of the last entry before `time` and the balance it left: where a statement of a period starts. */
  async lastBefore(time: number): Promise<{ seq: number; balance: string }> {
    return this.store.ledger.lastBefore(time);
  }

  /** The charges of these orders written in this object (an order's charge names its reference). */
  async charges(orderIds: string[]): Promise<LedgerEntry[]> {
    return this.store.ledger.charges(orderIds);
  }

  /** The movements naming the order (the reconciliation's look at an order charged long before). */
  async orderEntries(orderId: string): Promise<LedgerEntry[]> {
    return this.store.ledger.ofOrder(orderId);
  }

  async entry(key: string): Promise<LedgerEntry | null> {
    return this.store.ledger.byKey(key);
  }

  /**
   * A page of what day `day` moved in this wallet (ledger-day-flow.ts): the reconciliation's summary of the
   * ledger by wallet and day. Reads only; `next` says where the following page starts.
   */
  async ledgerDay(day: number, afterSeq: number | null = null, limit = LEDGER_DAY_PAGE): Promise<LedgerDayPage> {
    return ledgerDay(this.store.ledger, day, afterSeq, limit);
  }

  /** The invariant check: the balance, the decimal sum of every entry, and how many entries there are. */
  async audit(): Promise<WalletAudit> {
    return audit(this.store);
  }

  /** The backup of this wallet: every entry, exact, oldest first (ledger-backup.ts). */
  async exportLedger(clientId: string, currency: string): Promise<LedgerExport> {
    const deployment = this.env.DEPLOYMENT;
    return exportLedger(this.store, { clientId, currency, deployment, mode: serviceMode(this.env) }, Date.now());
  }

  /** Writes an export's entries verbatim into this wallet, which must have none; all or nothing. */
  async restoreLedger(
    backup: Pick<LedgerExport, "balance" | "voids"> & { entries: ExportedEntry[] },
  ): Promise<RestoreResult> {
    const result = restoreLedger(this.ctx.storage, backup, Date.now());
    // The store opened before the restore remembers the balance of an empty wallet.
    if (result.ok) this.opened = null;
    return result;
  }

  /** The last seq a restore wrote into this ledger (0: none did): what the reconciliation takes as restored. */
  async restoredThrough(): Promise<number> {
    return this.store.ledger.restoredThrough();
  }
}
