/**
 * The dead-letter side of webhooks: the consumer of `order-webhooks-dlq` keeps every message in the D1
 * table `dead_letters` (migration 0003), and an operator lists and replays them through the functions
 * below (the /admin routes call them).
 */
import { backoffSeconds } from "./delivery";
import { recordDeliveryFailures, type GivenUp } from "./delivery-failure";
import type { WebhookMessage } from "./events";
import { DeadLetterMessageSchema, QueuedWebhookMessageSchema } from "./webhook-message-schemas";
import { componentLog } from "../kernel/log";
import { pageOf, rowsToFetch } from "../kernel/paging";

export interface DeadLetter {
  id: number;
  eventId: string;
  clientId: string;
  url: string;
  /** The queue message as it will be replayed: `{clientId, url, event}`. */
  message: WebhookMessage;
  /** Attempts made before giving up; null when the Queue dead-lettered the message by itself. */
  attempts: number | null;
  lastError: string;
  /** Milliseconds since the epoch. */
  failedAt: number;
  replayedAt: number | null;
}

export interface DeadLetterRow {
  id: number;
  event_id: string;
  client_id: string;
  url: string;
  message: string;
  attempts: number | null;
  last_error: string;
  failed_at: number;
  replayed_at: number | null;
}

/** A dead letter as an operator sees it: its row, its message as the queue will be sent it again. */
export function deadLetterOf(row: DeadLetterRow): DeadLetter {
  return {
    id: row.id,
    eventId: row.event_id,
    clientId: row.client_id,
    url: row.url,
    message: JSON.parse(row.message) as WebhookMessage,
    attempts: row.attempts,
    lastError: row.last_error,
    failedAt: row.failed_at,
    replayedAt: row.replayed_at,
  };
}

const log = componentLog("webhooks-dlq");

/**
 * The row a message the dead-letter queue hands over is kept as, failed at `failedAt` (its id and replay
 * are the table's), or null when it is not a webhook message and could never be replayed.
 */
export function deadLetterRowOf(body: unknown, failedAt: number): Omit<DeadLetterRow, "id" | "replayed_at"> | null {
  const parsed = DeadLetterMessageSchema.safeParse(body);
  if (!parsed.success) return null;
  const { deadLetter, ...message } = parsed.data;
  return {
    event_id: message.event.id,
    client_id: message.clientId,
    url: message.url,
    message: JSON.stringify(message),
    attempts: deadLetter?.attempts ?? null,
    last_error: deadLetter?.error ?? "retries ran out in the queue",
    failed_at: failedAt,
  };
}

/** The `queue` handler for `order-webhooks-dlq`: stores each message; an event already kept and not yet replayed is kept once. */
export async function keepDeadLetters(batch: MessageBatch<unknown>, env: Pick<Env, "DB" | "BOOKS">): Promise<void> {
  const now = Date.now();
  const kept: Message<unknown>[] = [];
  const givenUp: GivenUp[] = [];
  const statements: D1PreparedStatement[] = [];
  for (const raw of batch.messages) {
    const row = deadLetterRowOf(raw.body, now);
    if (row === null) {
      // Nothing here could be replayed; say so loudly rather than loop on it.
      log("error", "malformed dead letter dropped", {
        messageId: raw.id,
        body: JSON.stringify(raw.body)?.slice(0, 2000),
      });
      raw.ack();
      continue;
    }
    log("warn", "webhook kept as dead letter", {
      messageId: raw.id,
      eventId: row.event_id,
      clientId: row.client_id,
      error: row.last_error,
    });
    statements.push(
      env.DB.prepare(
        `INSERT OR IGNORE INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
      ).bind(row.event_id, row.client_id, row.url, row.message, row.attempts, row.last_error, row.failed_at),
    );
    kept.push(raw);
    const message = JSON.parse(row.message) as WebhookMessage;
    const given = { attempts: row.attempts ?? 0, error: row.last_error, endpointId: null };
    givenUp.push({ ...given, clientId: row.client_id, event: message.event, url: row.url });
  }
  if (statements.length === 0) return;
  try {
    await env.DB.batch(statements);
    // Each one's delivery.failed in its client's books (a repeat is nothing new), before the ack.
    await recordDeliveryFailures(env, givenUp, now);
  } catch (error) {
    log("error", "could not store dead letters; retrying", {
      error: error instanceof Error ? error.message : String(error),
    });
    for (const raw of kept) raw.retry({ delaySeconds: backoffSeconds(raw.attempts) });
    return;
  }
  for (const raw of kept) raw.ack();
}

export interface ListDeadLettersOptions {
  /** Only this client's dead letters. */
  clientId?: string;
  /** `pending` (not replayed yet, the default), `replayed` or `all`. */
  status?: "pending" | "replayed" | "all";
  /** Page size, 1..200 (default 50). */
  limit?: number;
  /** Cursor: only ids below this one (the `nextBefore` of the previous page). */
  before?: number;
}

export interface DeadLetterPage {
  deadLetters: DeadLetter[];
  /** Pass as `before` for the next page; null on the last page. */
  nextBefore: number | null;
}

/** Dead letters, newest first. */
export async function listDeadLetters(db: D1Database, options: ListDeadLettersOptions = {}): Promise<DeadLetterPage> {
  const limit = Math.min(200, Math.max(1, Math.floor(options.limit ?? 50)));
  const where: string[] = [];
  const params: (string | number)[] = [];
  const status = options.status ?? "pending";
  if (status === "pending") where.push("replayed_at IS NULL");
  if (status === "replayed") where.push("replayed_at IS NOT NULL");
  if (options.clientId !== undefined) {
    params.push(options.clientId);
    where.push(`client_id = ?${params.length}`);
  }
  if (options.before !== undefined) {
    params.push(Math.floor(options.before));
    where.push(`id < ?${params.length}`);
  }
  params.push(rowsToFetch(limit));
  const sql = `SELECT * FROM dead_letters ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ?${params.length}`;
  const { results } = await db
    .prepare(sql)
    .bind(...params)
    .all<DeadLetterRow>();
  const page = pageOf(results, limit, (row) => row.id);
  return { deadLetters: page.items.map(deadLetterOf), nextBefore: page.next };
}

/** The dead letters of these events (a few: one order's), oldest first. */
export async function deadLettersOfEvents(db: D1Database, eventIds: readonly string[]): Promise<DeadLetter[]> {
  if (eventIds.length === 0) return [];
  const marks = eventIds.map((_, index) => `?${index + 1}`).join(", ");
  const { results } = await db
    .prepare(`SELECT * FROM dead_letters WHERE event_id IN (${marks}) ORDER BY id`)
    .bind(...eventIds)
    .all<DeadLetterRow>();
  return results.map(deadLetterOf);
}

/** One dead letter, or null. */
export async function getDeadLetter(db: D1Database, id: number): Promise<DeadLetter | null> {
  const row = await db.prepare(`SELECT * FROM dead_letters WHERE id = ?1`).bind(id).first<DeadLetterRow>();
  return row === null ? null : deadLetterOf(row);
}

export type ReplayResult =
  { ok: true; deadLetter: DeadLetter } | { ok: false; reason: "not_found" | "already_replayed" };

/**
 * Sends a dead letter's message to the webhook queue again (same event id, attempts start afresh) and
 * marks it replayed. Marked first, so two operators cannot replay it twice; unmarked if the queue refuses
 * (then this throws).
 */
export async function replayDeadLetter(env: Pick<Env, "DB" | "WEBHOOKS">, id: number): Promise<ReplayResult> {
  const now = Date.now();
  const row = await env.DB.prepare(
    `UPDATE dead_letters SET replayed_at = ?2 WHERE id = ?1 AND replayed_at IS NULL RETURNING *`,
  )
    .bind(id, now)
    .first<DeadLetterRow>();
  if (row === null) {
    const existing = await getDeadLetter(env.DB, id);
    return { ok: false, reason: existing === null ? "not_found" : "already_replayed" };
  }
  const deadLetter = deadLetterOf(row);
  try {
    // Re-validated, so a replay never sends what the consumer would drop as malformed.
    const message = QueuedWebhookMessageSchema.parse(deadLetter.message);
    await env.WEBHOOKS.send(message, { contentType: "json" });
  } catch (error) {
    await env.DB.prepare(`UPDATE dead_letters SET replayed_at = NULL WHERE id = ?1 AND replayed_at = ?2`)
      .bind(id, now)
      .run()
      .catch(() => undefined);
    throw error;
  }
  log("info", "dead letter replayed", { id, eventId: deadLetter.eventId });
  return { ok: true, deadLetter };
}
