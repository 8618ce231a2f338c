/**
 * The export jobs in D1 (schema/migrations/0060_order_exports.sql): a job's row, its step claimed by one
 * run for a lease, its cursor moved only from the step that run read, and the jobs whose step was lost.
 * Only this module reads or writes the table.
 */
import type { ExportCursor, ExportFilter } from "./export-rules";

export type JobState = "running" | "done";

export interface ExportJob {
  id: number;
  filter: ExportFilter & { createdTo: number };
  fromDay: number;
  toDay: number;
  state: JobState;
  cursor: ExportCursor | null;
  /** Steps done: the chunks written, and the number of the next one. */
  step: number;
  rows: number;
  requestedBy: string;
  requestedByName: string | null;
  createdAt: number;
  steppedAt: number;
  finishedAt: number | null;
}

type JobRow = Record<string, unknown>;

function jobOf(row: JobRow): ExportJob {
  return {
    id: row.id as number,
    filter: JSON.parse(row.filter as string) as ExportJob["filter"],
    fromDay: row.from_day as number,
    toDay: row.to_day as number,
    state: row.state as JobState,
    cursor: row.cursor === null ? null : (JSON.parse(row.cursor as string) as ExportCursor),
    step: row.step as number,
    rows: row.rows as number,
    requestedBy: row.requested_by as string,
    requestedByName: (row.requested_by_name as string | null) ?? null,
    createdAt: row.created_at as number,
    steppedAt: row.stepped_at as number,
    finishedAt: (row.finished_at as number | null) ?? null,
  };
}

/** Stores a new job, running from its first step; answers it. */
export async function insertJob(
  db: D1Database,
  job: Pick<ExportJob, "filter" | "fromDay" | "toDay" | "requestedBy" | "requestedByName">,
  now: number,
): Promise<ExportJob> {
  const row = await db
    .prepare(
      `INSERT INTO order_exports (filter, from_day, to_day, state, requested_by, requested_by_name, created_at, stepped_at)
       VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?6) RETURNING *`,
    )
    .bind(JSON.stringify(job.filter), job.fromDay, job.toDay, job.requestedBy, job.requestedByName, now)
    .first<JobRow>();
  return jobOf(row!);
}

export async function jobById(db: D1Database, id: number): Promise<ExportJob | null> {
  const row = await db.prepare(`SELECT * FROM order_exports WHERE id = ?1`).bind(id).first<JobRow>();
  return row === null ? null : jobOf(row);
}

/** Up to `limit` jobs before `before` (an id; null: the newest), newest first. */
export async function listJobs(db: D1Database, before: number | null, limit: number): Promise<ExportJob[]> {
  const { results } = await db
    .prepare(`SELECT * FROM order_exports WHERE id < ?1 ORDER BY id DESC LIMIT ?2`)
    .bind(before ?? Number.MAX_SAFE_INTEGER, limit)
    .all<JobRow>();
  return results.map(jobOf);
}

/**
 * Claims step `step` of a running job for the run `run` until `until`: passes only while no other run
 * holds it (its lease over) and the job is still at that step. Answers whether it passed.
 */
export async function claimStep(
  db: D1Database,
  { id, step, run, until, now }: { id: number; step: number; run: string; until: number; now: number },
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE order_exports SET run = ?3, lease_until = ?4
        WHERE id = ?1 AND step = ?2 AND state = 'running' AND lease_until <= ?5`,
    )
    .bind(id, step, run, until, now)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** Lets go of a claimed step that failed, so that a retry need not wait for the lease. */
export async function releaseStep(db: D1Database, id: number, run: string): Promise<void> {
  await db
    .prepare(`UPDATE order_exports SET run = NULL, lease_until = 0 WHERE id = ?1 AND run = ?2`)
    .bind(id, run)
    .run();
}

/**
 * Moves the cursor past step `step`, whose chunk (of `rows` rows) is written: only from that step and by
 * the run that holds it, so two runs of one step move it once. `next` null: the walk is over, the job done.
 * Answers whether it moved.
 */
export async function moveCursor(
  db: D1Database,
  move: { id: number; step: number; run: string; next: ExportCursor | null; rows: number },
  now: number,
): Promise<boolean> {
  const done = move.next === null;
  const result = await db
    .prepare(
      `UPDATE order_exports SET step = step + 1, cursor = COALESCE(?4, cursor), rows = rows + ?5,
         state = CASE WHEN ?6 THEN 'done' ELSE 'running' END, finished_at = CASE WHEN ?6 THEN ?7 END,
         run = NULL, lease_until = 0, stepped_at = ?7
        WHERE id = ?1 AND step = ?2 AND run = ?3 AND state = 'running'`,
    )
    .bind(move.id, move.step, move.run, done ? null : JSON.stringify(move.next), move.rows, done ? 1 : 0, now)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * Up to `limit` running jobs whose step has not moved since `before` and that no run holds at `now`: the
 * steps the cron hands on again (their message was lost, or their run died).
 */
export async function lostJobs(db: D1Database, before: number, now: number, limit: number): Promise<number[]> {
  const { results } = await db
    .prepare(
      `SELECT id FROM order_exports INDEXED BY order_exports_running
        WHERE state = 'running' AND stepped_at < ?1 AND lease_until <= ?2 ORDER BY stepped_at LIMIT ?3`,
    )
    .bind(before, now, limit)
    .all<{ id: number }>();
  return results.map((row) => row.id);
}
