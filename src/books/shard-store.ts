/**
 * A shard's storage (docs/books.md, "A shard's tables"): its orders, keyed by (created_at, id) without a
 * rowid so that a list newest first is a walk of the key and no index entry is written, and one counters
 * row per wallet. The schema is versioned as every object's storage is (src/kernel/migrations.ts); its
 * version and the shard's address are one key of the object's key-value storage, which the runtime keeps
 * in a table of its own, written once with the shard's first row.
 */
import { currentVersion, migrationsAfter, type Migration } from "../kernel/migrations";
import type { Answers } from "./answer-rules";
import { DAY_BUCKETS, type Counters } from "./counters-rules";
import type { BookLine, BookRow, BookState } from "./row-rules";
import type { BooksCursor, ShardAddress } from "./shard-rules";

/** A step of the shard's schema; answers the rows it wrote (a table created writes rows of SQLite's own). */
export type ShardMigration = Migration<(sql: SqlStorage) => number>;

export const SHARD_MIGRATIONS: readonly ShardMigration[] = [
  {
    version: 1,
    description: "a day's orders keyed by creation, and each wallet's counters of the day",
    up(sql) {
      const cursor = sql.exec(`
        CREATE TABLE orders (
          created_at INTEGER NOT NULL, id TEXT NOT NULL, reference TEXT NOT NULL, state TEXT NOT NULL,
          wallet TEXT NOT NULL, total TEXT NOT NULL, charged TEXT NOT NULL, refunded TEXT NOT NULL,
          skus TEXT NOT NULL, lines TEXT NOT NULL, modified_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          version INTEGER NOT NULL, codes INTEGER NOT NULL, codes_hash TEXT NOT NULL,
          charge_hash TEXT NOT NULL, refund_hash TEXT NOT NULL, deliveries TEXT NOT NULL DEFAULT '{}',
          PRIMARY KEY (created_at, id)
        ) WITHOUT ROWID;
        CREATE TABLE counters (
          wallet TEXT PRIMARY KEY, orders INTEGER NOT NULL, open INTEGER NOT NULL, successful INTEGER NOT NULL,
          partial INTEGER NOT NULL, failed INTEGER NOT NULL, rejected INTEGER NOT NULL, total INTEGER NOT NULL,
          charged INTEGER NOT NULL, refunded INTEGER NOT NULL, charges_hash TEXT NOT NULL,
          refunds_hash TEXT NOT NULL, codes INTEGER NOT NULL, codes_hash TEXT NOT NULL, lines TEXT NOT NULL,
          changes INTEGER NOT NULL, changed_at INTEGER NOT NULL
        ) WITHOUT ROWID;`);
      cursor.toArray();
      return cursor.rowsWritten;
    },
  },
];

export const SHARD_SCHEMA_VERSION = currentVersion(SHARD_MIGRATIONS);

const META_KEY = "shard";

/** A wallet's counters as stored, with the count and time of the last change of the day's rows. */
export interface StoredCounters {
  wallet: string;
  counters: Counters;
  /** Changes made to the wallet's rows that day: rises with every one (issue 43 reopens a sealed day on it). */
  changes: number;
  changedAt: number;
}

/** A row with the receivers' last answers to its events. */
export type StoredRow = BookRow & { deliveries: Answers };

/** What a page of a shard's orders is filtered by; all optional. */
export interface ShardQuery {
  /** Only orders after this one, newest first. */
  after?: BooksCursor | null;
  state?: BookState;
  /** Unix ms, inclusive. */
  createdFrom?: number;
  createdTo?: number;
  /** A prefix of the reference. */
  reference?: string;
  sku?: string;
  wallet?: string;
  /** Only orders still open (created, confirmed or processing): the repair pass's. */
  open?: boolean;
  limit: number;
}

type Row = Record<string, SqlStorageValue>;

function rowOf(stored: Row, clientId: string): StoredRow {
  return {
    id: stored.id as string,
    clientId,
    reference: stored.reference as string,
    state: stored.state as BookState,
    wallet: stored.wallet as string,
    total: stored.total as string,
    charged: stored.charged as string,
    refunded: stored.refunded as string,
    skus: (stored.skus as string).split(",").filter((sku) => sku !== ""),
    lines: JSON.parse(stored.lines as string) as BookLine[],
    createdAt: stored.created_at as number,
    modifiedAt: stored.modified_at as number,
    expiresAt: stored.expires_at as number,
    version: stored.version as number,
    codes: stored.codes as number,
    codesHash: stored.codes_hash as string,
    chargeHash: stored.charge_hash as string,
    refundHash: stored.refund_hash as string,
    deliveries: JSON.parse(stored.deliveries as string) as Answers,
  };
}

function countersOf(stored: Row): StoredCounters {
  return {
    wallet: stored.wallet as string,
    counters: {
      orders: stored.orders as number,
      buckets: Object.fromEntries(
        DAY_BUCKETS.map((bucket) => [bucket, stored[bucket] as number]),
      ) as Counters["buckets"],
      total: stored.total as number,
      charged: stored.charged as number,
      refunded: stored.refunded as number,
      chargesHash: stored.charges_hash as string,
      refundsHash: stored.refunds_hash as string,
      codes: stored.codes as number,
      codesHash: stored.codes_hash as string,
      lines: JSON.parse(stored.lines as string) as Counters["lines"],
    },
    changes: stored.changes as number,
    changedAt: stored.changed_at as number,
  };
}

/** Greater than any character a reference can hold, so that `prefix || PREFIX_END` bounds a prefix range. */
const PREFIX_END = String.fromCodePoint(0x10ffff);

/** The SQL of a page of `query`, newest first: a walk of the key backwards, every filter checked on its rows. */
export function pageQuery(query: ShardQuery): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const bind = (value: string | number): string => {
    params.push(value);
    return `?${params.length}`;
  };
  if (query.after != null) where.push(`(created_at, id) < (${bind(query.after.createdAt)}, ${bind(query.after.id)})`);
  if (query.createdFrom !== undefined) where.push(`created_at >= ${bind(query.createdFrom)}`);
  if (query.createdTo !== undefined) where.push(`created_at <= ${bind(query.createdTo)}`);
  if (query.state !== undefined) where.push(`state = ${bind(query.state)}`);
  if (query.wallet !== undefined) where.push(`wallet = ${bind(query.wallet)}`);
  if (query.open === true) where.push(`state IN ('created', 'confirmed', 'processing')`);
  if (query.reference !== undefined)
    where.push(`reference >= ${bind(query.reference)}`, `reference < ${bind(query.reference + PREFIX_END)}`);
  if (query.sku !== undefined) where.push(`instr(skus, ${bind(`,${query.sku},`)}) > 0`);
  const sql =
    `SELECT * FROM orders` +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY created_at DESC, id DESC LIMIT ${bind(query.limit)}`;
  return { sql, params };
}

/** What a shard stores once, at its first write: its schema's version and its own address. */
interface ShardMeta {
  schema: number;
  address: ShardAddress;
}

export class ShardStore {
  private readonly sql: SqlStorage;
  /** The stored meta as this instance read or wrote it; undefined until read, null for a shard with nothing stored. */
  private meta: ShardMeta | null | undefined = undefined;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
  }

  private readMeta(): ShardMeta | null {
    if (this.meta === undefined) this.meta = this.storage.kv.get<ShardMeta>(META_KEY) ?? null;
    return this.meta;
  }

  /**
   * The tables at their current version, or null for a shard that has stored nothing (a read of such a
   * shard creates nothing). A shard stored under an older version migrates here, once per instance.
   */
  private readable(): SqlStorage | null {
    const meta = this.readMeta();
    if (meta === null) return null;
    const pending = migrationsAfter(SHARD_MIGRATIONS, meta.schema);
    if (pending.length > 0) this.migrate(pending, meta.address);
    return this.sql;
  }

  /**
   * Creates the tables at the shard's first write, together with its meta (one key-value row); answers
   * the rows that wrote (0 once created).
   */
  private create(address: ShardAddress): number {
    return this.readable() === null ? this.migrate(SHARD_MIGRATIONS, address) : 0;
  }

  /** Runs `migrations` and stores the meta at the current version, in one transaction; answers the rows written. */
  private migrate(migrations: readonly ShardMigration[], address: ShardAddress): number {
    return this.storage.transactionSync(() => {
      let written = 0;
      for (const migration of migrations) written += migration.up(this.sql);
      const meta = { schema: SHARD_SCHEMA_VERSION, address };
      this.storage.kv.put(META_KEY, meta);
      this.meta = meta;
      return written + 1;
    });
  }

  /** Forgets what this instance read (the shard's storage was deleted under it). */
  forget(): void {
    this.meta = undefined;
  }

  /** The stored schema version: 0 for a shard that has stored nothing. */
  schemaVersion(): number {
    return this.readMeta()?.schema ?? 0;
  }

  /** The shard's own address, stored with its first write (null before it). */
  address(): ShardAddress | null {
    return this.readMeta()?.address ?? null;
  }

  row(createdAt: number, id: string): StoredRow | null {
    const found = this.readable()
      ?.exec(`SELECT * FROM orders WHERE created_at = ?1 AND id = ?2`, createdAt, id)
      .toArray()[0];
    return found === undefined ? null : rowOf(found, this.address()!.clientId);
  }

  counters(wallet: string): StoredCounters | null {
    const found = this.readable()?.exec(`SELECT * FROM counters WHERE wallet = ?1`, wallet).toArray()[0];
    return found === undefined ? null : countersOf(found);
  }

  allCounters(): StoredCounters[] {
    return (this.readable()?.exec(`SELECT * FROM counters ORDER BY wallet`).toArray() ?? []).map(countersOf);
  }

  /**
   * Stores `row` (with `deliveries`) and its wallet's counters, in one transaction; answers the rows
   * written (a new shard's creation included). The caller has read both and computed the counters from
   * them in the same synchronous step.
   */
  write(address: ShardAddress, row: BookRow, deliveries: Answers, counters: StoredCounters): number {
    const created = this.create(address);
    const sql = this.sql;
    return (
      created +
      this.storage.transactionSync(() => {
        const rowCursor = sql.exec(
          `INSERT INTO orders (created_at, id, reference, state, wallet, total, charged, refunded, skus, lines,
           modified_at, expires_at, version, codes, codes_hash, charge_hash, refund_hash, deliveries)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
         ON CONFLICT (created_at, id) DO UPDATE SET state = excluded.state, total = excluded.total,
           charged = excluded.charged, refunded = excluded.refunded, skus = excluded.skus, lines = excluded.lines,
           modified_at = excluded.modified_at, expires_at = excluded.expires_at, version = excluded.version,
           codes = excluded.codes, codes_hash = excluded.codes_hash, charge_hash = excluded.charge_hash,
           refund_hash = excluded.refund_hash, deliveries = excluded.deliveries`,
          row.createdAt,
          row.id,
          row.reference,
          row.state,
          row.wallet,
          row.total,
          row.charged,
          row.refunded,
          `,${row.skus.join(",")},`,
          JSON.stringify(row.lines),
          row.modifiedAt,
          row.expiresAt,
          row.version,
          row.codes,
          row.codesHash,
          row.chargeHash,
          row.refundHash,
          JSON.stringify(deliveries),
        );
        rowCursor.toArray();
        return rowCursor.rowsWritten + this.writeCounters(counters);
      })
    );
  }

  private writeCounters({ wallet, counters, changes, changedAt }: StoredCounters): number {
    const cursor = this.sql.exec(
      `INSERT INTO counters (wallet, orders, open, successful, partial, failed, rejected, total, charged, refunded,
         charges_hash, refunds_hash, codes, codes_hash, lines, changes, changed_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
       ON CONFLICT (wallet) DO UPDATE SET orders = excluded.orders, open = excluded.open,
         successful = excluded.successful, partial = excluded.partial, failed = excluded.failed,
         rejected = excluded.rejected, total = excluded.total, charged = excluded.charged,
         refunded = excluded.refunded, charges_hash = excluded.charges_hash, refunds_hash = excluded.refunds_hash,
         codes = excluded.codes, codes_hash = excluded.codes_hash, lines = excluded.lines,
         changes = excluded.changes, changed_at = excluded.changed_at`,
      wallet,
      counters.orders,
      ...DAY_BUCKETS.map((bucket) => counters.buckets[bucket]),
      counters.total,
      counters.charged,
      counters.refunded,
      counters.chargesHash,
      counters.refundsHash,
      counters.codes,
      counters.codesHash,
      JSON.stringify(counters.lines),
      changes,
      changedAt,
    );
    cursor.toArray();
    return cursor.rowsWritten;
  }

  /** Replaces a row's answers (the row's version stays); answers the rows written. */
  writeAnswers(createdAt: number, id: string, deliveries: Answers): number {
    const sql = this.readable();
    if (sql === null) return 0;
    const cursor = sql.exec(
      `UPDATE orders SET deliveries = ?3 WHERE created_at = ?1 AND id = ?2`,
      createdAt,
      id,
      JSON.stringify(deliveries),
    );
    cursor.toArray();
    return cursor.rowsWritten;
  }

  /** A page of the shard's orders, newest first. */
  page(query: ShardQuery): StoredRow[] {
    const { sql, params } = pageQuery(query);
    const rows =
      this.readable()
        ?.exec(sql, ...params)
        .toArray() ?? [];
    return rows.map((row) => rowOf(row, this.address()!.clientId));
  }

  /** The creation time of the shard's first order (one row read), or null. */
  firstCreatedAt(): number | null {
    const found = this.readable()?.exec(`SELECT created_at FROM orders ORDER BY created_at LIMIT 1`).toArray()[0];
    return found === undefined ? null : (found.created_at as number);
  }
}
