/**
 * The reconciliation's own tables (schema/migrations/0013, 0018, 0045 and 0080): the checkpoint of its feeds (the
 * audit log's postings, codes sold, wallets moved), the mismatches still standing, the on-demand runs' rate
 * limit, and the last run the Needs attention list shows; its days are in day-store.ts. Only the scheduled
 * pass (and an operator's run from the console) writes them, but for a demand's row.
 */
import type { WalletDay } from "./day-rules";
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
  codes: { soldAt: number; id: number };
  auditId: number;
  movesAt: number;
  startedAt: number;
  finishedAt: number;
  leftToNext: number;
  leftRising: number;
  /** The last wallet-day of changed books a pass offered: the next reads those after it first. */
  changedAfter: WalletDay | null;
}

export async function loadCheckpoint(db: D1Database): Promise<Checkpoint> {
  const row = await db
    .prepare(
      `SELECT codes_at, codes_id, audit_id, moves_at, started_at, finished_at, left_to_next, left_rising, changed_after
         FROM reconciliation_checkpoint WHERE id = 1`,
    )
    .first<Record<string, number | string>>();
  const number = (name: string) => Number(row?.[name] ?? 0);
  return {
    codes: { soldAt: number("codes_at"), id: number("codes_id") },
    auditId: number("audit_id"),
    movesAt: number("moves_at"),
    startedAt: number("started_at"),
    finishedAt: number("finished_at"),
    leftToNext: number("left_to_next"),
    leftRising: number("left_rising"),
    changedAfter: changedAfterOf(row?.changed_after),
  };
}

function changedAfterOf(text: unknown): WalletDay | null {
  if (typeof text !== "string" || text === "") return null;
  const day = JSON.parse(text) as Partial<WalletDay>;
  return typeof day.clientId === "string" && typeof day.currency === "string" && typeof day.day === "number"
    ? { clientId: day.clientId, currency: day.currency, day: day.day }
    : null;
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
         codes_at = ?1, codes_id = ?2, audit_id = max(audit_id, ?3), moves_at = max(moves_at, ?4),
         finished_at = ?5, left_to_next = ?6, left_rising = ?7, changed_after = ?8
       WHERE id = 1 AND (codes_at, codes_id) <= (?1, ?2)`,
    )
    .bind(
      next.codes.soldAt,
      next.codes.id,
      next.auditId,
      next.movesAt,
      next.finishedAt,
      next.leftToNext,
      next.leftRising,
      next.changedAfter === null ? "" : JSON.stringify(next.changedAfter),
    );
}

/** A mismatch and the subject whose check found it (`order:<id>`, `wallet:<client>:<currency>`, …). */
export type Finding = Mismatch & { subject: string };

/** Replaces what a check of `subject` (from a feed) found before with `found` (none: it is in order now). */
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
