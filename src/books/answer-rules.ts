/**
 * The receivers' last answers to an order's webhook events, kept in the order's row in its shard
 * (docs/books.md, "Webhook answers"): which answer is the last, and whether an answer waits for the row's
 * next write instead of being written on its own. Pure.
 */
import type { BookState } from "./row-rules";

export type AnswerOutcome = "delivered" | "retrying" | "dead_lettered";

/** One event's delivery attempt as the queue's consumer saw it. */
export interface DeliveryAnswer {
  eventId: string;
  /** The queue's attempt number of that attempt (1 for the first). */
  attempts: number;
  outcome: AnswerOutcome;
  /** The answer's HTTP status; null for a timeout, a network error or a refusal before sending. */
  status: number | null;
  /** What went wrong (null when delivered). */
  error: string | null;
  answeredAt: number;
}

/** An answer with what it is about: the order (and so its shard) and the state its event announced. */
export interface OrderAnswer extends DeliveryAnswer {
  clientId: string;
  orderId: string;
  orderCreatedAt: number;
  state: BookState;
}

/** The answers by event id, as a row holds them. */
export type Answers = Record<string, DeliveryAnswer>;

/** `answers` with `added` in, each replacing only one answered earlier (by time, not attempt: a replayed dead letter counts from 1). */
export function mergeAnswers(answers: Answers, added: readonly DeliveryAnswer[]): Answers {
  const merged = { ...answers };
  for (const answer of added) {
    const { eventId, attempts, outcome, status, error, answeredAt } = answer;
    const known = merged[eventId];
    if (known === undefined || answeredAt >= known.answeredAt)
      merged[eventId] = {
        eventId,
        attempts,
        outcome,
        status,
        error: error === null ? null : error.slice(0, 500),
        answeredAt,
      };
  }
  return merged;
}

/** Whether two sets of answers are the same (a merge that changes nothing is not written). */
export function sameAnswers(a: Answers, b: Answers): boolean {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
}

const STAGE: Record<BookState, number> = {
  created: 0,
  confirmed: 1,
  processing: 2,
  successful: 3,
  partial: 3,
  failed: 3,
  rejected: 3,
};

/**
 * Whether an answer to an event announcing `announced` waits for the row's next write: the row is not
 * written yet, or shows a state before the one announced. That write is on its way (the order stores the
 * event and its books timer together), so the answer rides on it instead of costing a row of its own.
 */
export function waitsForRow(row: { state: BookState } | null, announced: BookState): boolean {
  return row === null || STAGE[row.state] < STAGE[announced];
}

/** How long an answer waits for its row's write before the shard writes it on its own. */
export const ANSWER_WAIT_MS = 30_000;
