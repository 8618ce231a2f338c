/**
 * The rules of an export across clients (docs/books.md, "Exports across clients"): its filter and the days
 * it walks, the bounds of a step, where a step leaves the walk, the names of its chunks and how long a run
 * holds its step. Pure.
 */
import { beforeDay, dayOf, type BooksCursor, type ShardAddress } from "../books/shard-rules";
import type { StoredRow } from "../books/shard-store";
import type { OrderSummary } from "../order-index/order-search-admin-schemas";

/** What an export selects: the filters of GET /admin/orders/export, each optional. */
export interface ExportFilter {
  clientId?: string;
  state?: OrderSummary["state"];
  sku?: string;
  /** Unix ms, both ends included. */
  createdFrom?: number;
  createdTo?: number;
  /** A prefix of the reference; needs clientId. */
  reference?: string;
}

/** Where the next step starts: in this shard, after this row (null: from its newest row). */
export interface ExportCursor extends ShardAddress {
  after: BooksCursor | null;
}

/** How much one step reads at most. */
export interface StepBounds {
  rows: number;
  shards: number;
}

/** A step reads at most 5,000 orders from at most 200 shards: well within a queue consumer's limits. */
export const STEP_BOUNDS: StepBounds = { rows: 5_000, shards: 200 };

/**
 * How long a run holds its step: a queue consumer is stopped after 15 minutes, so a run past its lease is
 * gone, and no two runs ever write one chunk.
 */
export const LEASE_MS = 15 * 60_000;
/** A run that finds less than this left of its lease before it writes its chunk gives the step up. */
export const LEASE_MARGIN_MS = 5 * 60_000;
/** A running job whose step has not moved for this long, with no lease held, is handed on by the cron. */
export const LOST_AFTER_MS = 60_000;

/**
 * The filter a job stores: the one asked for, its creation range ending at the job's own creation at the
 * latest, so that a job does not chase orders created while it runs.
 */
export function jobFilter(filter: ExportFilter, now: number): ExportFilter & { createdTo: number } {
  return { ...filter, createdTo: Math.min(filter.createdTo ?? now, now) };
}

/** The days a job walks, newest first: from its filter's end down to its start (or the books' first day). */
export function walkDays(
  filter: ExportFilter & { createdTo: number },
  firstDay: number | null,
): { fromDay: number; toDay: number } {
  const toDay = dayOf(filter.createdTo);
  const fromDay = filter.createdFrom === undefined ? (firstDay ?? toDay) : dayOf(filter.createdFrom);
  return { fromDay: Math.min(fromDay, toDay + 1), toDay };
}

/** The R2 key of a job's chunk `number` (0, 1, …): padded, so that a listing is in order. */
export function chunkKey(exportId: number, number: number): string {
  return `exports/${exportId}/${String(number).padStart(6, "0")}.csv`;
}

/** A shard's page as a step read it: the rows after its start, at most `asked` of them. */
export interface ShardRead {
  address: ShardAddress;
  rows: StoredRow[];
  asked: number;
}

/**
 * What a step takes of the shards it read, in the walk's order, with `budget` rows to give: the rows, and
 * where the next step starts (null when the walk is over: `shortList`, the directory had no more shards
 * than these). A shard that answered fewer rows than it was asked for is exhausted; one that had more than
 * the budget left is continued after the last row taken.
 */
export function takeRows(
  reads: readonly ShardRead[],
  budget: number,
  shortList: boolean,
): { rows: StoredRow[]; next: ExportCursor | null } {
  const rows: StoredRow[] = [];
  let left = budget;
  for (const { address, rows: read } of reads) {
    if (left === 0) return { rows, next: { ...address, after: null } };
    const taken = read.slice(0, left);
    rows.push(...taken);
    left -= taken.length;
    // asked is more than the budget left before this shard, so a shard with no more rows than that is done.
    if (read.length > taken.length) {
      const last = taken[taken.length - 1]!;
      return { rows, next: { ...address, after: { createdAt: last.createdAt, id: last.id } } };
    }
  }
  const last = reads[reads.length - 1];
  if (shortList || last === undefined) return { rows, next: null };
  // Every shard read is exhausted and the directory has more: the next step starts after the last one.
  return { rows, next: { ...last.address, after: beforeDay(last.address.day) } };
}

/** Whether the cursor stands after every row of its shard: the next step starts at the shard after it. */
export function isPassed(cursor: ExportCursor): boolean {
  const end = beforeDay(cursor.day);
  return cursor.after !== null && cursor.after.createdAt === end.createdAt && cursor.after.id === end.id;
}

/** Days a job has walked past: those after the day its cursor is in (all once it is done). */
export function daysDone(job: { fromDay: number; toDay: number; cursor: ExportCursor | null; done: boolean }): number {
  if (job.done) return job.toDay - job.fromDay + 1;
  return job.cursor === null ? 0 : job.toDay - job.cursor.day;
}
