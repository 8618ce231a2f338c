/**
 * The pure rules of the daily figures: UTC days, the thousandths the figures are kept in
 * (schema/migrations/0020_daily_figures.sql), an average per day, and the day a stock or a balance runs
 * out at that rate.
 */
import type Decimal from "decimal.js";
import { Money } from "../pricing/money";

export const DAY_MS = 86_400_000;

/** How many days the charts look back, today included. */
export const CHART_DAYS = 30;

/** How far ahead a run-out day is told; beyond it, "not within 90 days". */
export const RUN_OUT_HORIZON_DAYS = 90;

/** The UTC day (days since 1970-01-01) of a unix-ms time, as the migration's triggers count it. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** A day as YYYY-MM-DD (UTC). */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The `count` days up to and including `last`, oldest first. */
export function daysUpTo(last: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => last - count + 1 + index);
}

/** An amount kept in thousandths, as the exact decimal. */
export function fromThousandths(thousandths: number): Money {
  return new Money(thousandths).dividedBy(1000);
}

/** The average per day of `total` over `days` days. */
export function perDay(total: Decimal.Value, days: number): Money {
  return new Money(total).dividedBy(days);
}

/**
 * The day `onHand` runs out if it keeps falling by `rate` a day from `today`: today when nothing is left,
 * else today plus the whole days it lasts. null when it does not fall (no rate) or lasts beyond `horizon`
 * days.
 */
export function runOutDay(
  onHand: Decimal.Value,
  rate: Decimal.Value,
  today: number,
  horizon = RUN_OUT_HORIZON_DAYS,
): number | null {
  const left = new Money(onHand);
  const falling = new Money(rate);
  if (left.lessThanOrEqualTo(0)) return today;
  if (falling.lessThanOrEqualTo(0)) return null;
  const days = left.dividedBy(falling).floor().toNumber();
  return days > horizon ? null : today + days;
}
