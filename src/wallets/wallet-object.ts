import { DurableObject } from "cloudflare:workers";
import type { LedgerEntry } from "./ledger";
import { chargeKey } from "./ledger-keys";
import { audit, post, voidOrder, type Posting, type PostingResult, type WalletAudit } from "./postings";
import { LedgerStore } from "./wallet-storage";
import { exportLedger, restoreLedger, type LedgerExport, type RestoreResult } from "./ledger-backup";

export type { Posting, PostingResult, WalletAudit } from "./postings";
export type { LedgerExport, RestoreResult } from "./ledger-backup";

/**
 * One wallet of one client in one currency: the RPC surface only. The ledger lives in wallet-storage.ts
 * (versioned schema, load and append) and the rules in postings.ts. Every balance change is a ledger entry
 * written in the same synchronous SQLite step that reads the balance, so no two debits can interleave.
 */
export class WalletObject extends DurableObject<Env> {
  private opened: LedgerStore | null = null;

  /** Opened on first use (not in the constructor), once per instance: the schema migrates then. */
  private get ledger(): LedgerStore {
    this.opened ??= new LedgerStore(this.ctx.storage);
    return this.opened;
  }

  /** GET /health's probe: the object answers, and its ledger is not opened (no storage is written). */
  async ping(): Promise<"ok"> {
    return "ok";
  }

  async balance(): Promise<string> {
    return this.ledger.balance().toFixed();
  }

  /** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
  async post(posting: Posting): Promise<PostingResult> {
    return post(this.ledger, posting);
  }

  /**
   * Voids an order for good: credits back its charge (under `chargeKey(orderId)`) if one landed, else
   * writes a void of 0; idempotent. After it, every charge of the order answers `order_voided`.
   */
  async voidOrder(orderId: string, reason: string): Promise<LedgerEntry> {
    return voidOrder(this.ledger, orderId, reason, chargeKey(orderId));
  }

  async entries(afterSeq = 0, limit = 100): Promise<LedgerEntry[]> {
    return this.ledger.page(afterSeq, limit);
  }

  async entry(key: string): Promise<LedgerEntry | null> {
    return this.ledger.byKey(key);
  }

  /** The invariant check: the balance, the decimal sum of every entry, and how many entries there are. */
  async audit(): Promise<WalletAudit> {
    return audit(this.ledger);
  }

  /** The backup of this wallet: every entry, exact, oldest first (ledger-backup.ts). */
  async exportLedger(clientId: string, currency: string): Promise<LedgerExport> {
    return exportLedger(this.ledger, { clientId, currency }, Date.now());
  }

  /** Writes an export's entries verbatim into this wallet, which must have none; all or nothing. */
  async restoreLedger(backup: Pick<LedgerExport, "balance" | "entries">): Promise<RestoreResult> {
    const result = restoreLedger(this.ctx.storage, backup);
    // The store opened before the restore remembers the balance of an empty wallet.
    if (result.ok) this.opened = null;
    return result;
  }
}
