/**
 * The receiver's last answer to each webhook event (D1 `webhook_deliveries`,
 * schema/migrations/0014_webhook_deliveries.sql), for the operator's order timeline. The queue consumer
 * records a batch's answers in one D1 batch after it has acked or retried its messages: a record that
 * cannot be written is logged and changes no delivery.
 */

export type DeliveryOutcome = "delivered" | "retrying" | "dead_lettered";

/** One event's last delivery attempt. */
export interface DeliveryRecord {
  eventId: string;
  /** The queue's attempt number of that attempt (1 for the first). */
  attempts: number;
  outcome: DeliveryOutcome;
  /** The answer's HTTP status; null for a timeout, a network error or a refusal before sending. */
  status: number | null;
  /** What went wrong (null when delivered). */
  error: string | null;
  answeredAt: number;
}

interface DeliveryRow {
  event_id: string;
  attempts: number;
  outcome: DeliveryOutcome;
  status: number | null;
  error: string | null;
  answered_at: number;
}

/**
 * Records the answers, each replacing one answered earlier (never one answered later: two deliveries of an
 * event answered out of order keep the later answer). By time, not by attempt: a replayed dead letter
 * starts its attempts at 1 again, and its answer is the event's last.
 */
export async function recordDeliveries(db: D1Database, records: readonly DeliveryRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.batch(
    records.map((record) =>
      db
        .prepare(
          `INSERT INTO webhook_deliveries (event_id, attempts, outcome, status, error, answered_at)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6)
           ON CONFLICT (event_id) DO UPDATE SET attempts = excluded.attempts, outcome = excluded.outcome,
             status = excluded.status, error = excluded.error, answered_at = excluded.answered_at
           WHERE excluded.answered_at >= webhook_deliveries.answered_at`,
        )
        .bind(
          record.eventId,
          record.attempts,
          record.outcome,
          record.status,
          record.error === null ? null : record.error.slice(0, 500),
          record.answeredAt,
        ),
    ),
  );
}

/** The last answers to `eventIds`, by event id. */
export async function deliveriesOfEvents(
  db: D1Database,
  eventIds: readonly string[],
): Promise<Map<string, DeliveryRecord>> {
  const found = new Map<string, DeliveryRecord>();
  if (eventIds.length === 0) return found;
  const marks = eventIds.map((_, index) => `?${index + 1}`).join(", ");
  const { results } = await db
    .prepare(`SELECT * FROM webhook_deliveries WHERE event_id IN (${marks})`)
    .bind(...eventIds)
    .all<DeliveryRow>();
  for (const row of results)
    found.set(row.event_id, {
      eventId: row.event_id,
      attempts: row.attempts,
      outcome: row.outcome,
      status: row.status,
      error: row.error,
      answeredAt: row.answered_at,
    });
  return found;
}
