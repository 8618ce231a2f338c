/**
 * How long the client's books are kept (docs/books.md, "Retention"): an operator's setting, keeping
 * everything unless set. A day's shards and its directory rows go once the day is older than the setting.
 * Pure.
 */
import { dayOf } from "./shard-rules";

/** The least a setting may keep: the charts' window and a month of events (GET /events) stay whole. */
export const MIN_RETENTION_DAYS = 31;
/** The most a setting may name (about 100 years): past it, keep everything. */
export const MAX_RETENTION_DAYS = 36_500;

/** Whether `days` is a retention an operator may set (null: keep everything). */
export function isRetention(days: number | null): boolean {
  return days === null || (Number.isInteger(days) && days >= MIN_RETENTION_DAYS && days <= MAX_RETENTION_DAYS);
}

/**
 * The first day kept at `now` under `days` of retention: days before it are dropped; null when
 * everything is kept. Today counts as one of the days kept.
 */
export function firstKeptDay(now: number, days: number | null): number | null {
  return days === null ? null : dayOf(now) - days + 1;
}
