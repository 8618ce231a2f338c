/**
 * The reconciliation's days (schema/migrations/0045): which wallet-days a pass checks, and what each check
 * decided. A wallet-day is due when its books changed since its last check (the books' published changes,
 * `books_days`, moved past what the check saw), when it was left settling or disagreeing, or when a sealed
 * day's re-verification comes; a pass reads each kind in pages (keyset, through an index). Nothing here
 * reads a day that did none of these.
 */
import type { DaySummaries, WalletDay } from "./day-rules";
import type { Finding } from "./reconciliation-store";

/** A wallet-day due, with what the last check of it decided. */
export interface DueDay extends WalletDay {
  /** The books' changes of the day now (summed over its parts), to be stored with this check. */
  booksChanges: number;
  state: "open" | "sealed" | "mismatch" | null;
  seal: DaySummaries | null;
  firstSeenAt: number | null;
  verified: number;
  /** Why it is due: books that changed, a day still settling or disagreeing, or a re-verification. */
  why: "changed" | "due" | "verify" | "named";
}

interface DayRow {
  client_id: string;
  currency: string;
  day: number;
  changes: number | null;
  state: "open" | "sealed" | "mismatch" | null;
  books_changes: number | null;
  seal: string | null;
  first_seen_at: number | null;
  verified: number | null;
}

const dueOf = (row: DayRow, why: DueDay["why"]): DueDay => ({
  clientId: row.client_id,
  currency: row.currency,
  day: row.day,
  booksChanges: row.changes ?? row.books_changes ?? 0,
  state: row.state,
  seal: row.seal === null ? null : (JSON.parse(row.seal) as DaySummaries),
  firstSeenAt: row.first_seen_at,
  verified: row.verified ?? 0,
  why,
});

/** Where a page of due days ends: the key of its last day in the order its source is read in. */
export type DueCursor = { at: number; day: WalletDay } | null;

/** One page of one source of due days, and where the next page starts (null: the source is read to its end). */
export interface DuePage {
  days: DueDay[];
  next: DueCursor;
}

/**
 * The next page (at most `limit`) of the days from `fromDay` on whose books changed since their last check
 * (or that were never checked), after `after` and up to `until` (both keys, in the order of the books' day
 * index: day, client, currency). Keyset paging: each page is one range of that index from the last key of
 * the page before, read in the index's order and grouped as it goes, so it stops at its `limit`th day
 * and no page re-reads the rows before it (no OFFSET, no sort).
 */
export async function changedPage(
  db: D1Database,
  fromDay: number,
  after: WalletDay | null,
  until: WalletDay | null,
  limit: number,
): Promise<DuePage> {
  // Every client id and currency is longer than '': (fromDay, '', '') comes before each key of fromDay.
  const from = after !== null && after.day >= fromDay ? after : { day: fromDay, clientId: "", currency: "" };
  const { results } = await db
    .prepare(
      `SELECT b.client_id, b.currency, b.day, SUM(b.changes) AS changes,
              r.state, r.books_changes, r.seal, r.first_seen_at, r.verified
         FROM books_days b LEFT JOIN reconciliation_days r
           ON r.client_id = b.client_id AND r.currency = b.currency AND r.day = b.day
        WHERE (b.day, b.client_id, b.currency) > (?1, ?2, ?3)
              ${until === null ? "" : "AND (b.day, b.client_id, b.currency) <= (?4, ?5, ?6)"}
        GROUP BY b.day, b.client_id, b.currency
       HAVING r.client_id IS NULL OR SUM(b.changes) > r.books_changes
        ORDER BY b.day, b.client_id, b.currency LIMIT ?7`,
    )
    .bind(
      from.day,
      from.clientId,
      from.currency,
      until?.day ?? null,
      until?.clientId ?? null,
      until?.currency ?? null,
      limit,
    )
    .all<DayRow>();
  const days = results.map((row) => dueOf(row, "changed"));
  const last = days[days.length - 1];
  return { days, next: days.length < limit || last === undefined ? null : { at: 0, day: last } };
}

/**
 * The next page (at most `limit`) of the days whose `due_at` (left settling or disagreeing) or `verify_at`
 * (a sealed day's re-verification) came by `now`, the longest waiting first, after `after`; read through
 * the partial index of that column.
 */
export async function timedPage(
  db: D1Database,
  column: "due_at" | "verify_at",
  now: number,
  after: DueCursor,
  limit: number,
): Promise<DuePage> {
  const { results } = await db
    .prepare(
      `SELECT client_id, currency, day, NULL AS changes, state, books_changes, seal, first_seen_at, verified, ${column} AS at
         FROM reconciliation_days WHERE ${column} <= ?1 AND (${column}, client_id, currency, day) > (?2, ?3, ?4, ?5)
        ORDER BY ${column}, client_id, currency, day LIMIT ?6`,
    )
    .bind(now, after?.at ?? -1, after?.day.clientId ?? "", after?.day.currency ?? "", after?.day.day ?? 0, limit)
    .all<DayRow & { at: number }>();
  const days = results.map((row) => dueOf(row, column === "due_at" ? "due" : "verify"));
  const last = results[results.length - 1];
  return {
    days,
    next: results.length < limit || last === undefined ? null : { at: last.at, day: days[days.length - 1]! },
  };
}

/** A wallet-day as stored, with when it was last checked. */
export type StoredDay = DueDay & { checkedAt: number };

/** What the reconciliation knows of these wallet-days (those it has never checked are absent). */
export async function knownDays(db: D1Database, days: readonly WalletDay[]): Promise<Map<string, StoredDay>> {
  const found = new Map<string, StoredDay>();
  for (let start = 0; start < days.length; start += 30) {
    const chunk = days.slice(start, start + 30);
    const triples = chunk.map((_, at) => `(?${3 * at + 1}, ?${3 * at + 2}, ?${3 * at + 3})`).join(", ");
    const { results } = await db
      .prepare(
        `SELECT client_id, currency, day, (SELECT SUM(changes) FROM books_days b WHERE b.client_id = r.client_id
                 AND b.day = r.day AND b.currency = r.currency) AS changes,
                state, books_changes, seal, first_seen_at, verified, checked_at
           FROM reconciliation_days r WHERE (client_id, currency, day) IN (VALUES ${triples})`,
      )
      .bind(...chunk.flatMap((day) => [day.clientId, day.currency, day.day]))
      .all<DayRow & { checked_at: number }>();
    for (const row of results)
      found.set(`${row.client_id}\u0000${row.currency}\u0000${row.day}`, {
        ...dueOf(row, "named"),
        checkedAt: row.checked_at,
      });
  }
  return found;
}

/** What a check decided of a day, as stored. */
export interface DayDecision {
  state: "open" | "sealed" | "mismatch";
  booksChanges: number;
  firstSeenAt: number;
  checkedAt: number;
  dueAt: number | null;
  verifyAt: number | null;
  verified: number;
  seal: DaySummaries | null;
}

export function dayStatement(db: D1Database, day: WalletDay, decision: DayDecision): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO reconciliation_days (client_id, currency, day, state, books_changes, first_seen_at, checked_at,
         due_at, verify_at, verified, seal)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
       ON CONFLICT (client_id, currency, day) DO UPDATE SET state = excluded.state,
         books_changes = max(books_changes, excluded.books_changes), first_seen_at = excluded.first_seen_at,
         checked_at = excluded.checked_at, due_at = excluded.due_at,
         -- A day sealed again, not re-verified, keeps its re-verification: its index entry is not rewritten.
         verify_at = CASE WHEN state = 'sealed' AND excluded.state = 'sealed' AND verify_at IS NOT NULL
                            AND verified = excluded.verified THEN verify_at ELSE excluded.verify_at END,
         verified = excluded.verified, seal = excluded.seal`,
    )
    .bind(
      day.clientId,
      day.currency,
      day.day,
      decision.state,
      decision.booksChanges,
      decision.firstSeenAt,
      decision.checkedAt,
      decision.dueAt,
      decision.verifyAt,
      decision.verified,
      decision.seal === null ? null : JSON.stringify(decision.seal),
    );
}

/** Replaces what earlier checks of the day found with `found` (none: the day is in order now). */
export function dayFindingStatements(
  db: D1Database,
  key: string,
  found: readonly Finding[],
  at: number,
): D1PreparedStatement[] {
  return [
    db.prepare(`DELETE FROM reconciliation_findings WHERE day_key = ?1`).bind(key),
    ...found.map((finding) =>
      db
        .prepare(
          `INSERT INTO reconciliation_findings (subject, check_name, problem, order_id, client_id, look_at, found_at, day_key)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
           ON CONFLICT (subject, check_name, problem) DO UPDATE SET day_key = excluded.day_key`,
        )
        .bind(
          finding.subject,
          finding.check,
          finding.problem,
          finding.orderId,
          finding.clientId,
          JSON.stringify(finding.lookAt),
          at,
          key,
        ),
    ),
  ];
}

/** Keeps a day a feed named but the pass left to the next one due: the feed's checkpoint moves past it. */
export function keepDueStatement(db: D1Database, day: WalletDay, now: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO reconciliation_days (client_id, currency, day, state, first_seen_at, checked_at, due_at)
       VALUES (?1, ?2, ?3, 'open', ?4, 0, ?4)
       ON CONFLICT (client_id, currency, day) DO UPDATE SET due_at = min(coalesce(due_at, excluded.due_at), excluded.due_at)`,
    )
    .bind(day.clientId, day.currency, day.day, now);
}

/** A sealed day whose books were dropped by their retention: it is not re-verified any more (nothing to compare). */
export function retiredStatement(db: D1Database, day: WalletDay): D1PreparedStatement {
  return db
    .prepare(`UPDATE reconciliation_days SET verify_at = NULL WHERE client_id = ?1 AND currency = ?2 AND day = ?3`)
    .bind(day.clientId, day.currency, day.day);
}
