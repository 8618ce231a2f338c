/**
 * The answer flow (docs/books.md, "Webhook answers"): the receivers' answers to an order's events, kept in
 * the order's row. An answer whose state the row does not show yet waits in memory for the row's write,
 * which is on its way and stores it at no row of its own; the others are written at once, one row per
 * order. Answers waiting longer than ANSWER_WAIT_MS are written by the shard's next request or alarm
 * (flushAnswers); no alarm is set for them, which would cost a write and a run for nearly every order with
 * a webhook. An answer held in memory is lost if the shard's object is evicted first (docs/books.md).
 */
import { ANSWER_WAIT_MS, mergeAnswers, sameAnswers, waitsForRow, type OrderAnswer } from "./answer-rules";
import { componentLog } from "../kernel/log";
import type { ShardHost } from "./shard-host";
import { partOf, type ShardAddress } from "./shard-rules";

export type AnswerHost = Pick<ShardHost, "store" | "now" | "parts" | "waiting">;

/** What the shard did with a batch of answers; `misrouted`: those of orders in another part of the day. */
export interface AnswersTaken {
  written: number;
  waiting: number;
  misrouted: OrderAnswer[];
  parts: number;
}

const log = componentLog("books");

/** How long a waiting answer is kept for a row that never comes before it is dropped (and logged). */
const WAIT_LIMIT_MS = 600_000;

function byOrder(answers: readonly OrderAnswer[]): Map<string, OrderAnswer[]> {
  const orders = new Map<string, OrderAnswer[]>();
  for (const answer of answers) orders.set(answer.orderId, [...(orders.get(answer.orderId) ?? []), answer]);
  return orders;
}

/** Writes an order's answers into its row; answers the rows written (0: the row already had them). */
function writeInto(host: Pick<ShardHost, "store">, createdAt: number, orderId: string, answers: OrderAnswer[]): number {
  const row = host.store.row(createdAt, orderId);
  if (row === null) return 0;
  const merged = mergeAnswers(row.deliveries, answers);
  return sameAnswers(merged, row.deliveries) ? 0 : host.store.writeAnswers(createdAt, orderId, merged);
}

/** Takes a batch of answers for orders of this shard's day. */
export async function takeAnswers(
  host: AnswerHost,
  address: ShardAddress,
  answers: readonly OrderAnswer[],
): Promise<AnswersTaken> {
  const parts = await host.parts(address);
  const taken: AnswersTaken = { written: 0, waiting: 0, misrouted: [], parts };
  for (const [orderId, mine] of byOrder(answers)) {
    if (partOf(orderId, parts) !== address.part) {
      taken.misrouted.push(...mine);
      continue;
    }
    const createdAt = mine[0]!.orderCreatedAt;
    const row = host.store.row(createdAt, orderId);
    if (mine.some((answer) => waitsForRow(row, answer.state))) {
      const waiting = host.waiting.get(orderId);
      const since = waiting?.since ?? host.now();
      host.waiting.set(orderId, {
        createdAt,
        answers: [...(waiting?.answers ?? []), ...mine],
        since,
        dueAt: waiting?.dueAt ?? since + ANSWER_WAIT_MS,
      });
      taken.waiting += mine.length;
    } else taken.written += writeInto(host, createdAt, orderId, mine);
  }
  taken.written += flushAnswers(host);
  return taken;
}

/** Answers that waited ANSWER_WAIT_MS are written into their rows (each request and alarm runs this); answers the rows written. */
export function flushAnswers(host: Pick<ShardHost, "store" | "now" | "waiting">): number {
  let written = 0;
  const now = host.now();
  for (const [orderId, waiting] of host.waiting) {
    if (now < waiting.dueAt) continue;
    if (host.store.row(waiting.createdAt, orderId) !== null) {
      written += writeInto(host, waiting.createdAt, orderId, waiting.answers);
      host.waiting.delete(orderId);
    } else if (now - waiting.since >= WAIT_LIMIT_MS) {
      log("warn", "webhook answers dropped: their order's row never came", {
        orderId,
        answers: waiting.answers.length,
      });
      host.waiting.delete(orderId);
    } else waiting.dueAt = now + ANSWER_WAIT_MS;
  }
  return written;
}
