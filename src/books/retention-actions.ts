/**
 * Setting how long the client's books are kept (docs/books.md, "Retention"), audited: what
 * PUT /admin/books/retention and the console's Books page run, so both write the same rows under the
 * operator who acted. The setting and its audit row are one D1 batch; the scheduled job then drops the days
 * past it (books-retention.ts).
 */
import { actorColumns, auditStatement, type AuditedBy } from "../audit/audit-store";
import { retentionSetting, retentionStatement } from "./directory-store";
import { firstKeptDay } from "./retention-rules";
import { DAY_MS } from "./shard-rules";

/** The setting as the route and the console show it. */
export interface RetentionView {
  /** Days kept, today included; null: everything is kept. */
  days: number | null;
  /** Unix ms of the start of the oldest UTC day kept now; null: everything is kept. */
  keptFrom: number | null;
  setAt: number | null;
  setBy: string | null;
}

/** The retention now. */
export async function booksRetention(db: D1Database, now = Date.now()): Promise<RetentionView> {
  const setting = await retentionSetting(db);
  if (setting === null) return { days: null, keptFrom: null, setAt: null, setBy: null };
  return { ...setting, keptFrom: firstKeptDay(now, setting.days)! * DAY_MS };
}

/** Sets the retention (null: keep everything), with its audit row; the caller has checked its bounds. */
export async function setBooksRetention(db: D1Database, by: AuditedBy, days: number | null): Promise<RetentionView> {
  const now = Date.now();
  await db.batch([
    retentionStatement(db, days, actorColumns(by.actor).actor, now),
    auditStatement(db, by, days === null ? "books.retention.remove" : "books.retention.set", "books:retention", {
      days,
    }),
  ]);
  return booksRetention(db, now);
}
