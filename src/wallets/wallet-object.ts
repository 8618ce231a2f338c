import { DurableObject } from "cloudflare:workers";
import { Money } from "../pricing/money";
import { decideDebit, type LedgerEntry, type LedgerKind } from "./ledger";
import { chargeKey, voidKey } from "./ledger-keys";
import { LedgerStore } from "./wallet-storage";

export interface Posting {
  /** Idempotency key: one ledger entry per key, ever. */
  key: string;
  kind: LedgerKind;
  /** Non-negative decimal string whose kind says debit or credit; an adjustment is signed itself. */
  amount: string;
  orderId?: string | null;
  reason?: string | null;
}

export type PostingResult =
  | { ok: true; entry: LedgerEntry; replayed: boolean }
  | { ok: false; code: "insufficient_funds"; balance: string }
  | { ok: false; code: "idempotency_conflict"; entry: LedgerEntry }
  /** The order was voided (it expired unconfirmed): it can never be charged. */
  | { ok: false; code: "order_voided"; entry: LedgerEntry };

const DEBIT_KINDS: ReadonlySet<LedgerKind> = new Set(["order_charge"]);
/** Kinds whose amount carries its own sign: an operator adjustment may take money out. */
const SIGNED_KINDS: ReadonlySet<LedgerKind> = new Set(["adjustment"]);

/**
 * One wallet of one client in one currency: the RPC surface over its ledger (src/wallets/wallet-storage.ts).
 * Every balance change is a ledger entry written in the same synchronous SQLite step that reads the
 * balance, so no two debits can interleave; the balance is the running sum kept on the newest entry.
 */
export class WalletObject extends DurableObject<Env> {
  private readonly ledger: LedgerStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ledger = new LedgerStore(ctx.storage);
  }

  async balance(): Promise<string> {
    return this.ledger.balance().toFixed();
  }

  /** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
  async post(posting: Posting): Promise<PostingResult> {
    const amount = new Money(posting.amount);
    if (!amount.isFinite() || (amount.isNegative() && !SIGNED_KINDS.has(posting.kind))) {
      throw new Error("posting amount must be a non-negative decimal");
    }
    const signed = DEBIT_KINDS.has(posting.kind) ? amount.negated() : amount;
    const existing = this.ledger.byKey(posting.key);
    if (existing !== null) {
      return existing.kind === posting.kind && new Money(existing.amount).equals(signed)
        ? { ok: true, entry: existing, replayed: true }
        : { ok: false, code: "idempotency_conflict", entry: existing };
    }
    // A void is final: a charge that reaches the wallet after its order expired (a confirm cut off on its
    // way here, retried late) is refused, so a rejected order never keeps money.
    if (posting.kind === "order_charge" && posting.orderId) {
      const voided = this.ledger.byKey(voidKey(posting.orderId));
      if (voided !== null) return { ok: false, code: "order_voided", entry: voided };
    }
    const balance = this.ledger.balance();
    let balanceAfter: Money;
    if (signed.isNegative()) {
      const decision = decideDebit(balance, signed.abs());
      if (!decision.ok) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
      balanceAfter = decision.balanceAfter;
    } else {
      balanceAfter = balance.plus(amount);
    }
    const entry = this.ledger.append({
      key: posting.key,
      kind: posting.kind,
      amount: signed,
      balanceAfter,
      orderId: posting.orderId ?? null,
      reason: posting.reason ?? null,
    });
    return { ok: true, entry, replayed: false };
  }

  /**
   * Voids an order that expired unconfirmed, for good: one entry under the order's void key that credits
   * back its charge if one landed (amount 0 if none did). Idempotent; after it the order's charge is
   * refused.
   */
  async voidOrder(orderId: string, reason: string): Promise<LedgerEntry> {
    const existing = this.ledger.byKey(voidKey(orderId));
    if (existing !== null) return existing;
    const charge = this.ledger.byKey(chargeKey(orderId));
    const credit = charge === null ? new Money(0) : new Money(charge.amount).abs();
    return this.ledger.append({
      key: voidKey(orderId),
      kind: "order_void",
      amount: credit,
      balanceAfter: this.ledger.balance().plus(credit),
      orderId,
      reason,
    });
  }

  async entries(afterSeq = 0, limit = 100): Promise<LedgerEntry[]> {
    return this.ledger.page(afterSeq, limit);
  }

  async entry(key: string): Promise<LedgerEntry | null> {
    return this.ledger.byKey(key);
  }

  /** The balance against the sum of the ledger's rows: equal, always (audits, chaos and fault tests). */
  async audit(): Promise<{ balance: string; ledgerSum: string; entries: number }> {
    const { sum, entries } = this.ledger.sum();
    return { balance: this.ledger.balance().toFixed(), ledgerSum: sum.toFixed(), entries };
  }
}
