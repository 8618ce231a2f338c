/**
 * A wallet moved to another object: the mark of its successor (`moved`), and what each transfer out carried
 * (`transfers`: the holds a move_out entry took to the successor). Its schema is the wallet's
 * (wallet-store.ts); the move's rules are postings.ts's, the registry's side wallet-moves.ts's.
 */
import type { StoredHold } from "./hold-store";

/** Where a moved wallet's successor is: its generation and region, and the key of the move. */
export interface Successor {
  generation: number;
  region: string | null;
  moveKey: string;
  movedAt: number;
}

/** The wallet's moves. Opened by WalletStore (wallet-store.ts). */
export class MoveStore {
  /**
   * True once this instance has read that the wallet has not moved: every call asks, and only markMoved
   * (here) changes it. A moved wallet is not remembered, so a move rolled back with its step leaves
   * nothing stale behind.
   */
  private knownUnmoved = false;

  constructor(private readonly sql: SqlStorage) {}

  /** The successor of a moved wallet, or null while the wallet has not moved. */
  successor(): Successor | null {
    if (this.knownUnmoved) return null;
    const row = this.sql
      .exec<{ generation: number; region: string | null; move_key: string; moved_at: number }>(
        `SELECT generation, region, move_key, moved_at FROM moved WHERE id = 1`,
      )
      .toArray()[0];
    if (row === undefined) {
      this.knownUnmoved = true;
      return null;
    }
    return { generation: row.generation, region: row.region, moveKey: row.move_key, movedAt: row.moved_at };
  }

  /** Marks the wallet moved for good: from here on it takes no new charge, hold or posting. */
  markMoved(successor: Successor): void {
    this.knownUnmoved = false;
    this.sql.exec(
      `INSERT OR IGNORE INTO moved (id, generation, region, move_key, moved_at) VALUES (1, ?, ?, ?, ?)`,
      successor.generation,
      successor.region,
      successor.moveKey,
      successor.movedAt,
    );
  }

  /** Records the holds a transfer out (the move_out entry under `key`) carries. */
  recordTransfer(key: string, holds: readonly StoredHold[]): void {
    this.sql.exec(`INSERT OR IGNORE INTO transfers (entry_key, holds) VALUES (?, ?)`, key, JSON.stringify(holds));
  }

  /** The holds the transfer out under `key` carried, or null when there is no such transfer. */
  transferHolds(key: string): StoredHold[] | null {
    const row = this.sql.exec<{ holds: string }>(`SELECT holds FROM transfers WHERE entry_key = ?`, key).toArray()[0];
    return row === undefined ? null : (JSON.parse(row.holds) as StoredHold[]);
  }

  /** The keys of every transfer out, oldest first. */
  transferKeys(): string[] {
    return this.sql
      .exec<{ entry_key: string }>(`SELECT entry_key FROM ledger WHERE kind = 'move_out' ORDER BY seq`)
      .toArray()
      .map((row) => row.entry_key);
  }
}
