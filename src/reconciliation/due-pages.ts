/**
 * Reading the due wallet-days in pages (docs/operator-api.md, Reconciliation, "The queue"): the days whose
 * books changed, those left settling or disagreeing, and sealed days due their re-verification, a page of
 * each in turn, each page keyset-paged through its index (no OFFSET: no page re-reads what the one before
 * read), until the pass has taken its budget (day-share-rules.ts) or every source is read to its end.
 *
 * The days whose books changed are read in the order of the books' day index (day, client, currency) from
 * where the last pass stopped, round to the start and up to there: a pass that cannot take every day due
 * takes the next ones the pass after, so no client's days wait behind another's for more than a lap. The
 * others are read the longest waiting first, which their own order already is.
 */
import type { WalletDay } from "./day-rules";
import { DayShare, type ShareBudget } from "./day-share-rules";
import { changedPage, timedPage, type DueCursor, type DueDay, type DuePage } from "./day-store";

/** Pages of due days, read one at a time; `exhausted` once every source was read to its end. */
export interface DuePager {
  next(): Promise<DueDay[] | null>;
  readonly exhausted: boolean;
  /** Sealed days read as due their re-verification whose books their retention dropped (none to compare). */
  readonly retired: DueDay[];
}

/** The days of one list, as one page (a read-only run's days of a span). */
export function listPager(days: readonly DueDay[]): DuePager {
  let read = false;
  return {
    retired: [],
    get exhausted() {
      return read;
    },
    async next() {
      if (read) return null;
      read = true;
      return [...days];
    },
  };
}

interface Source {
  read(): Promise<DuePage>;
  done: boolean;
}

/**
 * The pass's pager: a page of each source in turn, `pageSize` days a page, at most `maxPages` pages in all
 * (the pass's bound on its D1 reads); the days whose books changed from after `changedAfter`.
 */
export function duePager(
  db: D1Database,
  { now, fromDay, keptFrom, pageSize, maxPages, changedAfter }: DuePaging,
): DuePager {
  let changed: { after: WalletDay | null; until: WalletDay | null; lap: 1 | 2 } = {
    after: changedAfter,
    until: null,
    lap: 1,
  };
  let due: DueCursor = null;
  let verify: DueCursor = null;
  const sources: Source[] = [
    {
      done: false,
      async read() {
        const page = await changedPage(db, fromDay, changed.after, changed.until, pageSize);
        if (page.next !== null) changed = { ...changed, after: page.next.day };
        // The first lap ends: the second reads from the start up to where the first began.
        else if (changed.lap === 1 && changedAfter !== null) {
          changed = { after: null, until: changedAfter, lap: 2 };
          return { days: page.days, next: { at: 0, day: changedAfter } };
        }
        return page;
      },
    },
    {
      done: false,
      async read() {
        const page = await timedPage(db, "due_at", now, due, pageSize);
        due = page.next;
        return page;
      },
    },
    {
      done: false,
      async read() {
        const page = await timedPage(db, "verify_at", now, verify, pageSize);
        verify = page.next;
        return page;
      },
    },
  ];
  let turn = 0;
  let pages = 0;
  const retired: DueDay[] = [];
  return {
    retired,
    get exhausted() {
      return sources.every((source) => source.done);
    },
    async next() {
      const open = sources.filter((source) => !source.done);
      if (open.length === 0 || pages >= maxPages) return null;
      const source = open[turn++ % open.length]!;
      pages += 1;
      const page = await source.read();
      if (page.next === null) source.done = true;
      const ended = (day: DueDay) => day.why === "verify" && day.day < keptFrom;
      retired.push(...page.days.filter(ended));
      return page.days.filter((day) => !ended(day));
    },
  };
}

export interface DuePaging {
  now: number;
  /** The first day whose changed books are read (older days change only by a tampering). */
  fromDay: number;
  /** The first day the books still keep (their retention): a sealed day before it is not re-verified. */
  keptFrom: number;
  pageSize: number;
  maxPages: number;
  changedAfter: WalletDay | null;
}

/**
 * The days a pass takes: the pages, until its budget is taken or every page is read, then the days its
 * feeds named (those left are kept due by the pass). `stopped`: it stopped at its budget (or its bound on
 * pages) with days maybe not read.
 */
export async function takeDays(
  pager: DuePager,
  named: readonly DueDay[],
  budget: ShareBudget,
): Promise<{ share: DayShare; stopped: boolean }> {
  const share = new DayShare(budget);
  let stopped = false;
  // Once full, pages are read on only to learn whether a day not taken is left (a page of at most one more).
  while (!stopped) {
    const page = await pager.next();
    if (page === null) {
      stopped = !pager.exhausted;
      break;
    }
    for (const day of page) {
      if (!share.full) share.offer(day);
      else if (!share.has(day)) {
        stopped = true;
        break;
      }
    }
  }
  for (const day of named) share.offer(day);
  return { share, stopped };
}
