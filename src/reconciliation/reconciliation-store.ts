/**
 * The last reconciliation run (D1 `reconciliation_run`, schema/migrations/0013_reconciliation_run.sql):
 * written by each stored run (the hourly one, the console's "run now"), read by the Needs attention list.
 */
import type { Checked, Mismatch, Reconciliation } from "./reconciliation-rules";

/** How many of a run's mismatches are kept: more than the attention list shows; all are logged. */
export const STORED_MISMATCHES = 100;

/** The last run as stored. */
export interface StoredRun {
  ranAt: number;
  createdFrom: number;
  createdTo: number;
  checked: Checked;
  /** Every mismatch the run found, counted; `mismatches` holds the first STORED_MISMATCHES. */
  mismatchCount: number;
  mismatches: Mismatch[];
}

/** Replaces the last run with this one. */
export async function saveRun(db: D1Database, ranAt: number, run: Reconciliation): Promise<void> {
  await db
    .prepare(
      `INSERT OR REPLACE INTO reconciliation_run (id, ran_at, created_from, created_to, checked, mismatch_count, mismatches)
       VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)`,
    )
    .bind(
      ranAt,
      run.createdFrom,
      run.createdTo,
      JSON.stringify(run.checked),
      run.mismatches.length,
      JSON.stringify(run.mismatches.slice(0, STORED_MISMATCHES)),
    )
    .run();
}

/** The last run, or null before the first. */
export async function lastRun(db: D1Database | D1DatabaseSession): Promise<StoredRun | null> {
  const row = await db
    .prepare(
      `SELECT ran_at, created_from, created_to, checked, mismatch_count, mismatches FROM reconciliation_run WHERE id = 1`,
    )
    .first<{
      ran_at: number;
      created_from: number;
      created_to: number;
      checked: string;
      mismatch_count: number;
      mismatches: string;
    }>();
  if (row === null) return null;
  return {
    ranAt: row.ran_at,
    createdFrom: row.created_from,
    createdTo: row.created_to,
    checked: JSON.parse(row.checked) as Checked,
    mismatchCount: row.mismatch_count,
    mismatches: JSON.parse(row.mismatches) as Mismatch[],
  };
}
