/**
 * What the wallet keeps of its orders beside the ledger, none of it a movement of money: the holds of open
 * orders, the slots of open orders that hold no codes, the marks of orders voided for good, and the run of
 * the client's orders that expired unconfirmed. Its schema is the wallet's (wallet-store.ts).
 */
import { Money } from "../pricing/money";

/** An open order's claim on the balance, as stored (and as a move carries it to the successor). */
export interface StoredHold {
  orderId: string;
  amount: string;
  /** The order's expiresAt, for the reader: a hold does not lapse by the clock (see `heldBesides`). */
  until: number;
  /** The codes the order reserves; absent in a transfer written before holds counted them. */
  codes?: number;
}

/** An order voided for good: a mark beside the ledger that refuses any later charge of the order. */
export interface VoidMark {
  orderId: string;
  voidedAt: number;
  reason: string | null;
}

/**
 * A slot (`s`) whose order is still open at ?2: its time not passed, its order neither charged (its charge's
 * key in the ledger: ledger-keys.ts, chargeKey) nor voided. Read through the ledger's key index and the
 * voids' primary key.
 */
const OPEN_SLOT = `s.until > ?2 AND NOT EXISTS (SELECT 1 FROM ledger WHERE entry_key = 'order:' || s.order_id || ':charge')
  AND NOT EXISTS (SELECT 1 FROM order_voids v WHERE v.order_id = s.order_id)`;
/** The wallet's orders beside its ledger. Opened by WalletStore (wallet-store.ts). */
export class HoldStore {
  constructor(private readonly sql: SqlStorage) {}

  /** When the first of these orders was voided, or null: one statement, as every charge asks it. */
  voidedAt(orderIds: readonly string[]): number | null {
    if (orderIds.length === 0) return null;
    const marks = orderIds.map(() => "?").join(", ");
    const row = this.sql
      .exec<{ voided_at: number }>(
        `SELECT voided_at FROM order_voids WHERE order_id IN (${marks}) ORDER BY voided_at LIMIT 1`,
        ...orderIds,
      )
      .toArray()[0];
    return row?.voided_at ?? null;
  }

  /** Every void mark, oldest first: what a backup of the wallet must carry besides its entries. */
  voids(): VoidMark[] {
    return this.sql
      .exec<{ order_id: string; voided_at: number; reason: string | null }>(
        `SELECT order_id, voided_at, reason FROM order_voids ORDER BY voided_at, order_id`,
      )
      .toArray()
      .map((row) => ({ orderId: row.order_id, voidedAt: row.voided_at, reason: row.reason }));
  }

  /** Marks the order voided for good (a second mark changes nothing). */
  markVoided(orderId: string, reason: string | null, at: number): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO order_voids (order_id, voided_at, reason) VALUES (?, ?, ?)`,
      orderId,
      at,
      reason,
    );
  }

  /**
   * What the other orders' holds hold: their amounts' sum and their codes. A hold stands until its order is
   * charged or voided, or its create lets go of it, never by the clock alone: its codes stay reserved until
   * the order's expiry gives them back and voids it, so hold and codes lapse together.
   */
  heldBesides(orderId: string): { amount: Money; codes: number } {
    let amount = new Money(0);
    let codes = 0;
    for (const row of this.sql.exec<{ amount: string; codes: number }>(
      `SELECT amount, codes FROM holds WHERE order_id <> ?`,
      orderId,
    )) {
      amount = amount.plus(row.amount);
      codes += row.codes;
    }
    return { amount, codes };
  }

  /** Places (or, for a retried create, replaces) the order's hold. */
  placeHold(orderId: string, amount: Money, until: number, codes: number): void {
    this.sql.exec(
      `INSERT INTO holds (order_id, amount, until, codes) VALUES (?, ?, ?, ?) ON CONFLICT (order_id) DO UPDATE SET amount = excluded.amount, until = excluded.until, codes = excluded.codes`,
      orderId,
      amount.toFixed(),
      until,
      codes,
    );
  }

  /** The order is no longer open (charged, voided, or its create refused): its hold goes. Writes nothing when it has none. */
  dropHold(orderId: string): void {
    this.sql.exec(`DELETE FROM holds WHERE order_id = ?`, orderId);
  }

  /** Every hold that stands. */
  standingHolds(): StoredHold[] {
    return this.sql
      .exec<{ order_id: string; amount: string; until: number; codes: number }>(
        `SELECT order_id, amount, until, codes FROM holds ORDER BY order_id`,
      )
      .toArray()
      .map((row) => ({ orderId: row.order_id, amount: row.amount, until: row.until, codes: row.codes }));
  }

  /** Every hold goes (a move carries the standing ones to the successor). */
  dropAllHolds(): void {
    this.sql.exec(`DELETE FROM holds`);
  }

  /**
   * How many of the client's orders are open besides `orderId`: those holding codes (their holds stand
   * until they are charged or voided), and those in a slot until its time, not charged and not voided.
   */
  openOrders(orderId: string, now: number): number {
    const row = this.sql
      .exec<{ held: number; slotted: number }>(
        `SELECT (SELECT COUNT(*) FROM holds WHERE order_id <> ?1 AND codes > 0) AS held,
                (SELECT COUNT(*) FROM open_slots s WHERE s.order_id <> ?1 AND ${OPEN_SLOT}) AS slotted`,
        orderId,
        now,
      )
      .one();
    return row.held + row.slotted;
  }

  /**
   * Takes a slot for an open order that holds no codes, until `until`: its own if a retried create took one
   * (nothing written), else the first free slot, else a new one. One row written at most.
   */
  takeSlot(orderId: string, until: number, now: number): void {
    const own = this.sql.exec<{ slot: number }>(`SELECT slot FROM open_slots WHERE order_id = ?`, orderId).toArray()[0];
    if (own !== undefined) return;
    const free = this.sql
      .exec<{ slot: number }>(`SELECT slot FROM open_slots s WHERE NOT (${OPEN_SLOT}) ORDER BY slot LIMIT 1`, "", now)
      .toArray()[0];
    if (free !== undefined)
      this.sql.exec(`UPDATE open_slots SET order_id = ?, until = ? WHERE slot = ?`, orderId, until, free.slot);
    else this.sql.exec(`INSERT INTO open_slots (order_id, until) VALUES (?, ?)`, orderId, until);
  }

  /** The client's orders in a row that expired unconfirmed, as stored (null: none yet). */
  expiryStreak(): { count: number; lastAt: number } | null {
    const row = this.sql
      .exec<{ count: number; last_at: number }>(`SELECT count, last_at FROM expiry_streak WHERE id = 1`)
      .toArray()[0];
    return row === undefined ? null : { count: row.count, lastAt: row.last_at };
  }

  /** One more order expired unconfirmed, at `now`: `count` is the run's length with it. */
  noteExpired(count: number, now: number): void {
    this.sql.exec(
      `INSERT INTO expiry_streak (id, count, last_at) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET count = excluded.count, last_at = excluded.last_at`,
      count,
      now,
    );
  }

  /** An order was confirmed (charged): the run of expiries is over. Writes nothing when there is none. */
  endExpiryRun(): void {
    this.sql.exec(`UPDATE expiry_streak SET count = 0 WHERE id = 1 AND count > 0`);
  }
}
