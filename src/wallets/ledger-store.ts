/**
 * The wallet's ledger in its object's SQLite: the append-only entries with their running balance, the
 * record of the restores that wrote some of them (`restores`), and every read of them. Synchronous, so a
 * read and the append after it cannot interleave. The ledger's two writers are here: `append`, and
 * `writeRestored` for a restore. Its schema is the wallet's (wallet-store.ts).
 */
import { Money } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";

interface LedgerRow {
  seq: number;
  entry_key: string;
  kind: string;
  amount: string;
  balance_after: string;
  order_id: string | null;
  reason: string | null;
  created_at: number;
  note: string | null;
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
    note: row.note ?? null,
  };
}

export interface NewEntry {
  key: string;
  kind: LedgerKind;
  /** Signed: credits positive, debits negative. */
  amount: Money;
  balanceAfter: Money;
  orderId: string | null;
  reason: string | null;
  /** The client-facing note of an operator's posting (null: none). */
  note?: string | null;
  /** The UTC day its order was created on (an order's movement), else absent. */
  orderDay?: number | null;
}
/** An entry as an export carries it: a ledger entry whose note older exports left out. */
export type RestoredEntry = Omit<LedgerEntry, "note"> & { note?: string | null };

/** An entry as the reconciliation's day summary reads it (ledger-day-rules.ts). */
export interface DayRow {
  seq: number;
  key: string;
  kind: LedgerKind;
  amount: string;
  balanceAfter: string;
  orderId: string | null;
  orderDay: number | null;
  createdAt: number;
}

/** One wallet's ledger. Opened by WalletStore (wallet-store.ts), after the schema is brought up to date. */
export class LedgerStore {
  /** The newest entry's running balance, read once per instance: only this object writes the ledger. */
  private balanceCache: Money | null = null;

  constructor(private readonly sql: SqlStorage) {}

  balance(): Money {
    if (this.balanceCache === null) {
      const row = this.sql
        .exec<{ balance_after: string }>(`SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1`)
        .toArray()[0];
      this.balanceCache = new Money(row?.balance_after ?? 0);
    }
    return this.balanceCache;
  }

  byKey(key: string): LedgerEntry | null {
    const row = this.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE entry_key = ?`, key).toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  append(entry: NewEntry): LedgerEntry {
    const row = this.sql
      .exec<LedgerRow>(
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at, note, order_day)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        entry.key,
        entry.kind,
        entry.amount.toFixed(),
        entry.balanceAfter.toFixed(),
        entry.orderId,
        entry.reason,
        Date.now(),
        entry.note ?? null,
        entry.orderDay ?? null,
      )
      .one();
    this.balanceCache = entry.balanceAfter;
    return entryFromRow(row);
  }

  /** Records that a restore wrote this ledger's entries through `throughSeq` (with its transaction). */
  markRestored(throughSeq: number, entries: number, balance: string, at: number): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO restores (through_seq, entries, balance, restored_at) VALUES (?, ?, ?, ?)`,
      throughSeq,
      entries,
      balance,
      at,
    );
  }

  /**
   * Writes an export's entries verbatim (their seq, time and running balance) into this ledger, with the
   * record that a restore wrote them: the ledger's one writer besides `append`, so that whatever holds the
   * balance in memory hears of it. The restore's own transaction encloses the call.
   */
  writeRestored(entries: readonly RestoredEntry[], balance: string, at: number): void {
    for (const entry of entries) {
      this.sql.exec(
        `INSERT INTO ledger (seq, entry_key, kind, amount, balance_after, order_id, reason, created_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        entry.seq,
        entry.key,
        entry.kind,
        new Money(entry.amount).toFixed(),
        new Money(entry.balanceAfter).toFixed(),
        entry.orderId,
        entry.reason,
        entry.createdAt,
        entry.note ?? null,
      );
    }
    if (entries.length > 0) this.markRestored(entries.at(-1)!.seq, entries.length, new Money(balance).toFixed(), at);
    this.balanceCache = null;
  }

  /** The last seq a restore wrote here (0: no restore wrote this ledger). */
  restoredThrough(): number {
    const row = this.sql.exec<{ seq: number | null }>(`SELECT MAX(through_seq) AS seq FROM restores`).one();
    return row.seq ?? 0;
  }

  /** Movements of money only: the voids of amount 0 that older wallets wrote into the ledger are left out. */
  page(afterSeq: number, limit: number): LedgerEntry[] {
    return this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE seq > ? AND NOT (kind = 'order_void' AND amount = '0') ORDER BY seq LIMIT ?`,
        afterSeq,
        limit,
      )
      .toArray()
      .map(entryFromRow);
  }

  /**
   * The last entry written before `time`, of any kind (a move included): its seq and the balance it left
   * (0 and "0" when there is none). Read from the newest entry back, so a recent `time` reads few rows.
   */
  lastBefore(time: number): { seq: number; balance: string } {
    const row = this.sql
      .exec<{ seq: number; balance_after: string }>(
        `SELECT seq, balance_after FROM ledger WHERE created_at < ? ORDER BY seq DESC LIMIT 1`,
        time,
      )
      .toArray()[0];
    return row === undefined
      ? { seq: 0, balance: "0" }
      : { seq: row.seq, balance: new Money(row.balance_after).toFixed() };
  }

  /** The charges of these orders written here (read through the ledger_by_order index). */
  charges(orderIds: readonly string[]): LedgerEntry[] {
    if (orderIds.length === 0) return [];
    const marks = orderIds.map(() => "?").join(", ");
    return this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE order_id IN (${marks}) AND kind = 'order_charge' ORDER BY seq`,
        ...orderIds,
      )
      .toArray()
      .map(entryFromRow);
  }

  /** The movements naming `orderId`, in order (read through the ledger_by_order index). */
  ofOrder(orderId: string): LedgerEntry[] {
    return this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE order_id = ? AND NOT (kind = 'order_void' AND amount = '0') ORDER BY seq`,
        orderId,
      )
      .toArray()
      .map(entryFromRow);
  }

  /**
   * The balance after the last entry written at or before each of `times` (unix ms), or null where the
   * ledger had no entry yet: the console's balance over time. Entries are appended with the time they are
   * written, so `created_at` grows with `seq`, and each time is found by a binary search over `seq`: about
   * 2 log2(entries) rows read per time, whatever the ledger's length.
   */
  balancesAt(times: readonly number[]): (string | null)[] {
    const bounds = this.sql
      .exec<{ low: number | null; high: number | null }>(`SELECT MIN(seq) AS low, MAX(seq) AS high FROM ledger`)
      .one();
    const entryAt = (seq: number) =>
      this.sql
        .exec<{ seq: number; created_at: number; balance_after: string }>(
          `SELECT seq, created_at, balance_after FROM ledger WHERE seq >= ? ORDER BY seq LIMIT 1`,
          seq,
        )
        .toArray()[0]!;
    return times.map((time) => {
      if (bounds.low === null || bounds.high === null) return null;
      let low = bounds.low;
      let high = bounds.high;
      let found: string | null = null;
      while (low <= high) {
        const middle = Math.floor((low + high) / 2);
        const entry = entryAt(middle);
        if (entry.created_at <= time) {
          found = entry.balance_after;
          low = entry.seq + 1;
        } else high = middle - 1;
      }
      return found;
    });
  }

  /** The order day stored with the entry under `key` (null: none, or written before the column). */
  orderDayOf(key: string): number | null {
    const row = this.sql
      .exec<{ order_day: number | null }>(`SELECT order_day FROM ledger WHERE entry_key = ?`, key)
      .toArray()[0];
    return row?.order_day ?? null;
  }

  /**
   * The first seq written at or after `time` (null: none yet): a binary search over seq, as `created_at`
   * grows with it, about 2 log2(entries) rows read.
   */
  firstSeqFrom(time: number): number | null {
    const bounds = this.sql
      .exec<{ low: number | null; high: number | null }>(`SELECT MIN(seq) AS low, MAX(seq) AS high FROM ledger`)
      .one();
    if (bounds.low === null || bounds.high === null) return null;
    let low = bounds.low;
    let high = bounds.high;
    let found: number | null = null;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const entry = this.sql
        .exec<{ seq: number; created_at: number }>(
          `SELECT seq, created_at FROM ledger WHERE seq >= ? ORDER BY seq LIMIT 1`,
          middle,
        )
        .toArray()[0]!;
      if (entry.created_at >= time) {
        found = entry.seq;
        high = middle - 1;
      } else low = entry.seq + 1;
    }
    return found;
  }

  /** The balance after the last entry at or before `seq` (null: no entry there). */
  balanceThrough(seq: number): string | null {
    const row = this.sql
      .exec<{ balance_after: string }>(`SELECT balance_after FROM ledger WHERE seq <= ? ORDER BY seq DESC LIMIT 1`, seq)
      .toArray()[0];
    return row?.balance_after ?? null;
  }

  /** Up to `limit` entries after `afterSeq`, written before `before`, for a day's summary (voids of 0 left out). */
  dayRows(afterSeq: number, before: number, limit: number): DayRow[] {
    return this.sql
      .exec<LedgerRow & { order_day: number | null }>(
        `SELECT * FROM ledger WHERE seq > ? AND created_at < ? AND NOT (kind = 'order_void' AND amount = '0')
          ORDER BY seq LIMIT ?`,
        afterSeq,
        before,
        limit,
      )
      .toArray()
      .map((row) => ({ ...entryFromRow(row), orderDay: row.order_day ?? null }))
      .map(({ reason: _, ...row }) => row);
  }

  /** Every amount summed in decimal (SQLite's SUM would go through floating point), and how many there are. */
  sum(): { total: Money; count: number } {
    let total = new Money(0);
    let count = 0;
    for (const row of this.sql.exec<{ amount: string }>(`SELECT amount FROM ledger ORDER BY seq`)) {
      total = total.plus(row.amount);
      count += 1;
    }
    return { total, count };
  }
}
