/**
 * One step of an export across clients (docs/books.md, "Exports across clients"): the run claims the step,
 * reads at most STEP_BOUNDS.rows orders from at most STEP_BOUNDS.shards shards through the directory,
 * writes them as the step's numbered chunk to R2 and only then moves the cursor, from that step alone; then
 * it hands the next step to the queue. A run cut off anywhere leaves the cursor where it was, and the step
 * is run again (its chunk written again under the same name); a second run of a step finds it claimed.
 */
import { shardOf } from "../books/books-writer";
import { shardsOfNextDay, type WalkFrom } from "../books/directory-store";
import type { ShardAddress } from "../books/shard-rules";
import type { ShardQuery, StoredRow } from "../books/shard-store";
import { io } from "../kernel/faults";
import { orderCsvLine, orderSummaryOf } from "../order-index/order-search";
import {
  chunkKey,
  isPassed,
  LEASE_MARGIN_MS,
  LEASE_MS,
  STEP_BOUNDS,
  takeRows,
  type ExportCursor,
  type ShardRead,
  type StepBounds,
} from "./export-rules";
import { claimStep, jobById, moveCursor, releaseStep, type ExportJob } from "./export-store";
import { EXPORT_SEAMS } from "./seams";

export type ExportEnv = Pick<Env, "DB" | "BOOKS" | "EXPORTS" | "EXPORT_STEPS">;

/** The message of a step: the job whose next step it is. */
export interface StepMessage {
  exportId: number;
}

/** Shards read at once within a step. */
const SHARDS_AT_ONCE = 10;

/** Up to `limit` shards from the cursor on, in the walk's order (days newest first, then client and part). */
async function shardsFrom(db: D1Database, job: ExportJob, limit: number): Promise<ShardAddress[]> {
  const cursor = job.cursor;
  let walk: WalkFrom = {
    day: cursor?.day ?? job.toDay,
    from: cursor === null ? null : { clientId: cursor.clientId, part: cursor.part + (isPassed(cursor) ? 1 : 0) },
    fromDay: job.fromDay,
    ...(job.filter.clientId === undefined ? {} : { clientId: job.filter.clientId }),
  };
  const shards: ShardAddress[] = [];
  while (shards.length < limit && walk.day >= walk.fromDay) {
    const found = await shardsOfNextDay(db, walk, limit - shards.length);
    shards.push(...found);
    if (found.length === 0 && walk.from === null) break;
    walk = { ...walk, day: (found[0]?.day ?? walk.day) - 1, from: null };
  }
  return shards;
}

/** The shard query of the job's filter, without its position. */
function queryOf(job: ExportJob): Omit<ShardQuery, "after" | "limit"> {
  const { state, sku, createdFrom, createdTo, reference } = job.filter;
  return {
    ...(state === undefined ? {} : { state }),
    ...(sku === undefined ? {} : { sku }),
    ...(createdFrom === undefined ? {} : { createdFrom }),
    createdTo,
    ...(reference === undefined ? {} : { reference }),
  };
}

/** Whether `address` is the shard the cursor is in. */
function isAt(cursor: ExportCursor | null, address: ShardAddress): cursor is ExportCursor {
  return (
    cursor !== null &&
    cursor.day === address.day &&
    cursor.clientId === address.clientId &&
    cursor.part === address.part
  );
}

/** Reads the step's rows: the shards from the cursor on, a few at once, until the rows' bound is reached. */
async function readStep(
  env: ExportEnv,
  job: ExportJob,
  bounds: StepBounds,
): Promise<{ rows: StoredRow[]; next: ExportCursor | null }> {
  const shards = await shardsFrom(env.DB, job, bounds.shards);
  const query = queryOf(job);
  const reads: ShardRead[] = [];
  let left = bounds.rows;
  for (let start = 0; start < shards.length && left > 0; start += SHARDS_AT_ONCE) {
    const asked = left + 1;
    const group = shards.slice(start, start + SHARDS_AT_ONCE);
    const pages = await Promise.all(
      group.map(
        (address) =>
          shardOf(env.BOOKS, address).page({
            ...query,
            after: isAt(job.cursor, address) ? job.cursor.after : null,
            limit: asked,
          }) as Promise<StoredRow[]>,
      ),
    );
    group.forEach((address, at) => reads.push({ address, rows: pages[at]!, asked }));
    left -= Math.min(
      left,
      pages.reduce((sum, page) => sum + page.length, 0),
    );
  }
  // Shards not read (the rows' bound came first) are where the next step starts.
  const unread = shards.slice(reads.length).map((address) => ({ address, rows: [], asked: 1 }));
  return takeRows([...reads, ...unread], bounds.rows, shards.length < bounds.shards);
}

/**
 * Runs the next step of job `exportId` if it is running and no other run holds it. Answers what happened:
 * `stepped` (a chunk written and the cursor moved; the next step handed on), `done` (the last chunk),
 * `taken` (another run holds or has done the step), `idle` (no such job running).
 */
export async function runStep(
  env: ExportEnv,
  exportId: number,
  bounds: StepBounds = STEP_BOUNDS,
): Promise<"stepped" | "done" | "taken" | "idle"> {
  const job = await jobById(env.DB, exportId);
  if (job === null || job.state !== "running") return "idle";
  const run = crypto.randomUUID();
  const claimedAt = Date.now();
  const claimed = await io(EXPORT_SEAMS.claim, () =>
    claimStep(env.DB, { id: job.id, step: job.step, run, until: claimedAt + LEASE_MS, now: claimedAt }),
  ).catch(async (error: unknown) => {
    // The claim's answer may be lost after it passed: let go of it, as a failed step does.
    await releaseStep(env.DB, job.id, run).catch(() => undefined);
    throw error;
  });
  if (!claimed) return "taken";
  let moved: boolean;
  let next: ExportCursor | null;
  try {
    const step = await readStep(env, job, bounds);
    next = step.next;
    // A run this late may have outlived its lease by the time its chunk is stored: it leaves the step.
    if (Date.now() > claimedAt + LEASE_MS - LEASE_MARGIN_MS) throw new Error(`export ${job.id}: step too slow`);
    const csv = step.rows.map((row) => orderCsvLine(orderSummaryOf(row))).join("");
    await io(EXPORT_SEAMS.chunkWrite, () =>
      env.EXPORTS.put(chunkKey(job.id, job.step), csv, {
        httpMetadata: { contentType: "text/csv; charset=utf-8" },
        customMetadata: { run, rows: String(step.rows.length) },
      }),
    );
    moved = await io(EXPORT_SEAMS.cursorMove, () =>
      moveCursor(env.DB, { id: job.id, step: job.step, run, next, rows: step.rows.length }, Date.now()),
    );
  } catch (error) {
    // Let go of the step so that a retry runs it now; a run that died here leaves it to its lease.
    await releaseStep(env.DB, job.id, run).catch(() => undefined);
    throw error;
  }
  if (!moved) return "taken";
  if (next === null) return "done";
  await io(EXPORT_SEAMS.handOn, () => env.EXPORT_STEPS.send({ exportId: job.id } satisfies StepMessage));
  return "stepped";
}
