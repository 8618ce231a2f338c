/**
 * The wallet's answer to the reconciliation's question "what did day D move here?" (ledger-day-rules.ts): a
 * page of the day's window of entries, summed by order, with its postings and transfers and any break of the
 * running balance. Reads only. A page reads at most `limit` entries; the reconciliation asks for the next one
 * after `next`, so one call's work is bounded whatever the wallet's volume.
 */
import { dayPage, dayWindow, type LedgerDayPage } from "./ledger-day-rules";
import type { LedgerStore } from "./ledger-store";

/** Entries one page of a day reads at most. */
export const LEDGER_DAY_PAGE = 5_000;

export function ledgerDay(store: LedgerStore, day: number, afterSeq: number | null, limit: number): LedgerDayPage {
  const window = dayWindow(day);
  const bounded = Math.max(1, Math.min(limit, LEDGER_DAY_PAGE));
  let after = afterSeq;
  if (after === null) {
    const first = store.firstSeqFrom(window.from);
    if (first === null) return { ...dayPage(day, [], null, false), next: null };
    after = first - 1;
  }
  const rows = store.dayRows(after, window.before, bounded);
  const page = dayPage(day, rows, store.balanceThrough(after), rows.length === bounded);
  const { full, ...rest } = page;
  return { ...rest, lastSeq: rows.length === 0 ? after : rest.lastSeq, next: full ? rest.lastSeq : null };
}
