import { DurableObject } from "cloudflare:workers";
import { Money } from "../pricing/money";
import { decideDebit, type LedgerEntry, type LedgerKind } from "./ledger";

interface LedgerRow {
  seq: number;
  entry_key: string;
  kind: string;
  amount: string;
  balance_after: string;
  order_id: string | null;
  reason: string | null;
  created_at: number;
  [key: string]: SqlStorageValue;
}

function entryFromRow(row: LedgerRow): LedgerEntry {
  return {
    seq: row.seq,
    key: row.entry_key,
    kind: row.kind as LedgerKind,
    amount: row.amount,
    balanceAfter: row.balance_after,
    orderId: row.order_id,
    reason: row.reason,
    createdAt: row.created_at,
  };
}

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
  | { ok: false; code: "idempotency_conflict"; entry: LedgerEntry };

const DEBIT_KINDS: ReadonlySet<LedgerKind> = new Set(["order_charge"]);
/** Kinds whose amount carries its own sign: an operator adjustment may take money out. */
const SIGNED_KINDS: ReadonlySet<LedgerKind> = new Set(["adjustment"]);

/**
 * One wallet of one client in one currency. Every balance change is a ledger entry written in the same
 * synchronous SQLite step that reads the balance, so no two debits can interleave; the balance is the
 * running sum kept on the newest entry.
 */
export class WalletObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS ledger (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        entry_key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        amount TEXT NOT NULL,
        balance_after TEXT NOT NULL,
        order_id TEXT,
        reason TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE TRIGGER IF NOT EXISTS ledger_no_update BEFORE UPDATE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
      CREATE TRIGGER IF NOT EXISTS ledger_no_delete BEFORE DELETE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
    `);
  }

  /** The newest entry's running balance, read once per instance: only this object writes the ledger. */
  private balanceCache: Money | null = null;

  private balanceNow(): Money {
    if (this.balanceCache === null) {
      const row = this.sql.exec<{ balance_after: string }>(`SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1`).toArray()[0];
      this.balanceCache = new Money(row?.balance_after ?? 0);
    }
    return this.balanceCache;
  }

  private entryByKey(key: string): LedgerEntry | null {
    const row = this.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE entry_key = ?`, key).toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  async balance(): Promise<string> {
    return this.balanceNow().toFixed();
  }

  /** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
  async post(posting: Posting): Promise<PostingResult> {
    const amount = new Money(posting.amount);
    if (!amount.isFinite() || (amount.isNegative() && !SIGNED_KINDS.has(posting.kind))) {
      throw new Error("posting amount must be a non-negative decimal");
    }
    const signed = DEBIT_KINDS.has(posting.kind) ? amount.negated() : amount;
    const existing = this.entryByKey(posting.key);
    if (existing !== null) {
      return existing.kind === posting.kind && new Money(existing.amount).equals(signed)
        ? { ok: true, entry: existing, replayed: true }
        : { ok: false, code: "idempotency_conflict", entry: existing };
    }
    const balance = this.balanceNow();
    let balanceAfter: Money;
    if (signed.isNegative()) {
      const decision = decideDebit(balance, signed.abs());
      if (!decision.ok) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
      balanceAfter = decision.balanceAfter;
    } else {
      balanceAfter = balance.plus(amount);
    }
    const row = this.sql
      .exec<LedgerRow>(
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        posting.key,
        posting.kind,
        signed.toFixed(),
        balanceAfter.toFixed(),
        posting.orderId ?? null,
        posting.reason ?? null,
        Date.now(),
      )
      .one();
    this.balanceCache = balanceAfter;
    return { ok: true, entry: entryFromRow(row), replayed: false };
  }

  /**
   * Credits back what the entry under `chargeKey` took, once (under `key`), if that entry exists. Used
   * when an order is rejected after a charge whose confirmation never completed.
   */
  async reverse(chargeKey: string, key: string, kind: LedgerKind, reason: string): Promise<LedgerEntry | null> {
    const charge = this.entryByKey(chargeKey);
    if (charge === null) return null;
    const result = await this.post({ key, kind, amount: new Money(charge.amount).abs().toFixed(), orderId: charge.orderId, reason });
    return result.ok ? result.entry : null;
  }

  async entries(afterSeq = 0, limit = 100): Promise<LedgerEntry[]> {
    return this.sql
      .exec<LedgerRow>(`SELECT * FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, limit)
      .toArray()
      .map(entryFromRow);
  }

  async entry(key: string): Promise<LedgerEntry | null> {
    return this.entryByKey(key);
  }
}
