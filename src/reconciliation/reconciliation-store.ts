/**
 * The reconciliation's own tables (schema/migrations/0013 and 0018): the checkpoint each run resumes from,
 * how far it has read each wallet object's ledger, the orders it left to a later run, the mismatches still
 * standing, the on-demand runs' rate limit, and the last run the Needs attention list shows. Only the
 * scheduled run (and an operator's run from the console) writes them, but for a demand's row.
 */
import type { Checked, CheckName, Mismatch, Reconciliation } from "./reconciliation-rules";

/** How many of the standing mismatches the stored run keeps: more than the attention list shows. */
export const STORED_MISMATCHES = 100;

/** The last run as stored. */
export interface StoredRun {
  ranAt: number;
  createdFrom: number;
  createdTo: number;
  checked: Checked;
  /** Every mismatch standing after the run, counted; `mismatches` holds the first STORED_MISMATCHES. */
  mismatchCount: number;
  mismatches: Mismatch[];
  alerts: string[];
}

/** Where the last run stopped in each feed, and how the runs have gone. */
export interface Checkpoint {
  /** The orders feed: by creation (created_at, id). */
  orders: { createdAt: number; id: string };
  codes: { soldAt: number; id: number };
  auditId: number;
  movesAt: number;
  startedAt: number;
  finishedAt: number;
  leftToNext: number;
  leftRising: number;
}

export async function loadCheckpoint(db: D1Database): Promise<Checkpoint> {
  const row = await db
    .prepare(
      `SELECT orders_at, orders_id, codes_at, codes_id, audit_id, moves_at, started_at, finished_at, left_to_next, left_rising
         FROM reconciliation_checkpoint WHERE id = 1`,
    )
    .first<Record<string, number | string>>();
  const number = (name: string) => Number(row?.[name] ?? 0);
  return {
    orders: { createdAt: number("orders_at"), id: String(row?.orders_id ?? "") },
    codes: { soldAt: number("codes_at"), id: number("codes_id") },
    auditId: number("audit_id"),
    movesAt: number("moves_at"),
    startedAt: number("started_at"),
    finishedAt: number("finished_at"),
    leftToNext: number("left_to_next"),
    leftRising: number("left_rising"),
  };
}

/** Marks a run started (a run that dies leaves it later than `finished_at`: the next run says so). */
export async function markStarted(db: D1Database, at: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO reconciliation_checkpoint (id, started_at) VALUES (1, ?1)
       ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at`,
    )
    .bind(at)
    .run();
}

/** The checkpoint a finished run leaves; feeds only move forward (two runs at once both only advance it). */
export function checkpointStatement(db: D1Database, next: Checkpoint): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE reconciliation_checkpoint SET
         orders_at = ?1, orders_id = ?2, codes_at = ?3, codes_id = ?4,
         audit_id = max(audit_id, ?5), moves_at = max(moves_at, ?6),
         finished_at = ?7, left_to_next = ?8, left_rising = ?9
       WHERE id = 1 AND (orders_at, orders_id) <= (?1, ?2) AND (codes_at, codes_id) <= (?3, ?4)`,
    )
    .bind(
      next.orders.createdAt,
      next.orders.id,
      next.codes.soldAt,
      next.codes.id,
      next.auditId,
      next.movesAt,
      next.finishedAt,
      next.leftToNext,
      next.leftRising,
    );
}

/** How far the reconciliation has read these wallet objects' ledgers, by the objects' names. */
export async function ledgerCursorsOf(db: D1Database, names: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let start = 0; start < names.length; start += 90) {
    const chunk = names.slice(start, start + 90);
    const { results } = await db
      .prepare(
        `SELECT wallet, after_seq FROM reconciliation_ledger_cursors WHERE wallet IN (${chunk.map((_, at) => `?${at + 1}`).join(", ")})`,
      )
      .bind(...chunk)
      .all<{ wallet: string; after_seq: number }>();
    for (const row of results) found.set(row.wallet, row.after_seq);
  }
  return found;
}

export function ledgerCursorStatement(db: D1Database, wallet: string, afterSeq: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO reconciliation_ledger_cursors (wallet, after_seq) VALUES (?1, ?2)
       ON CONFLICT (wallet) DO UPDATE SET after_seq = excluded.after_seq WHERE excluded.after_seq > after_seq`,
    )
    .bind(wallet, afterSeq);
}

/** Up to `limit` orders left to a later run, longest waiting first. */
export async function deferredOrders(db: D1Database, limit: number): Promise<{ orderId: string; since: number }[]> {
  const { results } = await db
    .prepare(`SELECT order_id, since FROM reconciliation_deferred ORDER BY since LIMIT ?1`)
    .bind(limit)
    .all<{ order_id: string; since: number }>();
  return results.map((row) => ({ orderId: row.order_id, since: row.since }));
}

/** How many orders are left over, and how many of them since before `overdueBefore`. */
export async function deferredCount(db: D1Database, overdueBefore: number): Promise<{ left: number; overdue: number }> {
  const row = await db
    .prepare(`SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE since < ?1) AS overdue FROM reconciliation_deferred`)
    .bind(overdueBefore)
    .first<{ n: number; overdue: number }>();
  return { left: row?.n ?? 0, overdue: row?.overdue ?? 0 };
}

/** Leaves the order to a later run, keeping when it was first left. */
export function deferStatement(db: D1Database, orderId: string, since: number): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO reconciliation_deferred (order_id, since) VALUES (?1, ?2) ON CONFLICT (order_id) DO NOTHING`)
    .bind(orderId, since);
}

/** Keeps the order left over, its wait counted again from `since` (it was checked past the bound, still open). */
export function restartDeferralStatement(db: D1Database, orderId: string, since: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO reconciliation_deferred (order_id, since) VALUES (?1, ?2)
       ON CONFLICT (order_id) DO UPDATE SET since = excluded.since`,
    )
    .bind(orderId, since);
}

export function undeferStatement(db: D1Database, orderId: string): D1PreparedStatement {
  return db.prepare(`DELETE FROM reconciliation_deferred WHERE order_id = ?1`).bind(orderId);
}

/** A mismatch and the subject whose check found it (`order:<id>`, `wallet:<client>:<currency>`, …). */
export type Finding = Mismatch & { subject: string };

/** Replaces what a check of `subject` found before with `found` (none: it is in order now). */
export function findingStatements(
  db: D1Database,
  subject: string,
  found: readonly Finding[],
  at: number,
): D1PreparedStatement[] {
  return [
    db.prepare(`DELETE FROM reconciliation_findings WHERE subject = ?1`).bind(subject),
    ...found.map((finding) =>
      db
        .prepare(
          `INSERT OR IGNORE INTO reconciliation_findings (subject, check_name, problem, order_id, client_id, look_at, found_at)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
        )
        .bind(
          subject,
          finding.check,
          finding.problem,
          finding.orderId,
          finding.clientId,
          JSON.stringify(finding.lookAt),
          at,
        ),
    ),
  ];
}

/** A ledger entry with a mismatch standing: its subject (`entry:<wallet object>:<seq>`) and its wallet's client. */
export interface StandingEntry {
  subject: string;
  clientId: string;
}

/**
 * Up to `limit` orders, wallets and ledger entries with a mismatch standing (their subjects `order:`,
 * `wallet:`, `entry:`).
 */
export async function standingSubjects(
  db: D1Database,
  limit: number,
): Promise<{ orders: string[]; wallets: { clientId: string; currency: string }[]; entries: StandingEntry[] }> {
  const [orders, wallets, entries] = await db.batch([
    db
      .prepare(
        `SELECT DISTINCT substr(subject, 7) AS id FROM reconciliation_findings WHERE subject >= 'order:' AND subject < 'order;' LIMIT ?1`,
      )
      .bind(limit),
    db
      .prepare(
        `SELECT DISTINCT client_id, substr(subject, -3) AS currency FROM reconciliation_findings
          WHERE subject >= 'wallet:' AND subject < 'wallet;' LIMIT ?1`,
      )
      .bind(limit),
    db
      .prepare(
        `SELECT DISTINCT subject, client_id FROM reconciliation_findings
          WHERE subject >= 'entry:' AND subject < 'entry;' AND client_id IS NOT NULL
            AND check_name IN ('posting_audited', 'transfer_paired') LIMIT ?1`,
      )
      .bind(limit),
  ]);
  return {
    entries: (entries!.results as { subject: string; client_id: string }[]).map((row) => ({
      subject: row.subject,
      clientId: row.client_id,
    })),
    orders: (orders!.results as { id: string }[]).map((row) => row.id),
    wallets: (wallets!.results as { client_id: string; currency: string }[]).map((row) => ({
      clientId: row.client_id,
      currency: row.currency,
    })),
  };
}

/** The first `limit` standing mismatches, oldest first, and how many there are. */
export async function standingFindings(
  db: D1Database,
  limit: number,
): Promise<{ count: number; mismatches: Mismatch[] }> {
  const [count, rows] = await db.batch([
    db.prepare(`SELECT COUNT(*) AS n FROM reconciliation_findings`),
    db
      .prepare(
        `SELECT check_name, problem, order_id, client_id, look_at FROM reconciliation_findings ORDER BY found_at, subject LIMIT ?1`,
      )
      .bind(limit),
  ]);
  const mismatches = (
    rows!.results as {
      check_name: string;
      problem: string;
      order_id: string | null;
      client_id: string | null;
      look_at: string;
    }[]
  ).map((row) => ({
    check: row.check_name as CheckName,
    orderId: row.order_id,
    clientId: row.client_id,
    problem: row.problem,
    lookAt: JSON.parse(row.look_at) as string[],
  }));
  return { count: (count!.results[0] as { n: number }).n, mismatches };
}

/**
 * Takes one of `actor`'s on-demand runs if fewer than `limit` were taken in the last `windowMs`: one
 * batch, so two at once cannot both take the last. Answers whether it was taken.
 */
export async function takeDemand(
  db: D1Database,
  actor: string,
  now: number,
  limit: number,
  windowMs: number,
): Promise<boolean> {
  const [, taken] = await db.batch([
    db.prepare(`DELETE FROM reconciliation_demands WHERE actor = ?1 AND at <= ?2`).bind(actor, now - windowMs),
    db
      .prepare(
        `INSERT OR IGNORE INTO reconciliation_demands (actor, at)
         SELECT ?1, ?2 WHERE (SELECT COUNT(*) FROM reconciliation_demands WHERE actor = ?1) < ?3`,
      )
      .bind(actor, now, limit),
  ]);
  return (taken!.meta.changes ?? 0) > 0;
}

/** Replaces the last run with this one (its mismatches: those standing after it). */
export function saveRunStatement(
  db: D1Database,
  ranAt: number,
  run: Reconciliation,
  standing: { count: number; mismatches: Mismatch[] },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR REPLACE INTO reconciliation_run (id, ran_at, created_from, created_to, checked, mismatch_count, mismatches, alerts)
       VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
    )
    .bind(
      ranAt,
      run.createdFrom,
      run.createdTo,
      JSON.stringify(run.checked),
      standing.count,
      JSON.stringify(standing.mismatches.slice(0, STORED_MISMATCHES)),
      JSON.stringify(run.alerts),
    );
}

/** The last run, or null before the first. */
export async function lastRun(db: D1Database | D1DatabaseSession): Promise<StoredRun | null> {
  const row = await db
    .prepare(
      `SELECT ran_at, created_from, created_to, checked, mismatch_count, mismatches, alerts FROM reconciliation_run WHERE id = 1`,
    )
    .first<{
      ran_at: number;
      created_from: number;
      created_to: number;
      checked: string;
      mismatch_count: number;
      mismatches: string;
      alerts: string;
    }>();
  if (row === null) return null;
  return {
    ranAt: row.ran_at,
    createdFrom: row.created_from,
    createdTo: row.created_to,
    checked: JSON.parse(row.checked) as Checked,
    mismatchCount: row.mismatch_count,
    mismatches: JSON.parse(row.mismatches) as Mismatch[],
    alerts: JSON.parse(row.alerts) as string[],
  };
}

/** Up to `limit` wallets an earlier run did not read to their end, longest waiting first. */
export async function walletsLeftOver(
  db: D1Database,
  limit: number,
): Promise<{ clientId: string; currency: string }[]> {
  const { results } = await db
    .prepare(`SELECT client_id, currency FROM reconciliation_wallets_left ORDER BY since LIMIT ?1`)
    .bind(limit)
    .all<{ client_id: string; currency: string }>();
  return results.map((row) => ({ clientId: row.client_id, currency: row.currency }));
}

export function walletLeftStatement(
  db: D1Database,
  wallet: { clientId: string; currency: string },
  since: number,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO reconciliation_wallets_left (client_id, currency, since) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING`,
    )
    .bind(wallet.clientId, wallet.currency, since);
}

export function walletDoneStatement(
  db: D1Database,
  wallet: { clientId: string; currency: string },
): D1PreparedStatement {
  return db
    .prepare(`DELETE FROM reconciliation_wallets_left WHERE client_id = ?1 AND currency = ?2`)
    .bind(wallet.clientId, wallet.currency);
}
