/**
 * The wallet-days a pass hands to the reconciliation's queue (docs/operator-api.md, Reconciliation, "The
 * queue"): those beyond what one pass checks itself go out in messages of up to 100 days, each day by its
 * key and why it is due, and the queue's consumer checks each message's days as the pass would, storing
 * their decisions and findings. A message is retried when its check fails; its days also stay due in D1
 * until a check of them is stored, so a lost message is made up by a later pass.
 *
 * Cloudflare Queues take at most 100 messages or 256 KB a `sendBatch` call and 128 KB a message: messages
 * carry no seal (the consumer reads what is stored of its days), and a call is cut at SEND_BYTES.
 */
import { log } from "../kernel/log";
import { dayKey } from "./day-rules";
import { checkDays, checkedDayStatements, dayAlerts, type Clock } from "./day-runs";
import type { ReconcileEnv } from "./day-sources";
import { knownDays, type DueDay } from "./day-store";

/** Wallet-days one message carries: about 300 object requests for its consumer. */
export const DAYS_A_MESSAGE = 100;
/** Messages one `sendBatch` call takes at most (the platform's bound). */
export const MESSAGES_A_SEND = 100;
/**
 * Bytes of message bodies one `sendBatch` call carries at most: the platform's 256 KB less about 100
 * bytes of its own a message, with room to spare. A day is about 100 bytes (a client id is at most 64).
 */
export const SEND_BYTES = 200_000;

/** A day as a message carries it: its key, why it is due, and the books' changes the pass read. */
export type HandedDay = Pick<DueDay, "clientId" | "currency" | "day" | "why" | "booksChanges">;

/** A message of the reconciliation's queue. */
export interface DaysMessage {
  kind: "reconcile-days";
  days: HandedDay[];
  clock: Clock;
}

const encoder = new TextEncoder();
const bytesOf = (body: unknown) => encoder.encode(JSON.stringify(body)).length;

/** The messages of `days`, DAYS_A_MESSAGE a message. */
export function messagesOf(days: readonly DueDay[], clock: Clock): DaysMessage[] {
  const messages: DaysMessage[] = [];
  for (let start = 0; start < days.length; start += DAYS_A_MESSAGE)
    messages.push({
      kind: "reconcile-days",
      days: days.slice(start, start + DAYS_A_MESSAGE).map(({ clientId, currency, day, why, booksChanges }) => ({
        clientId,
        currency,
        day,
        why,
        booksChanges,
      })),
      clock,
    });
  return messages;
}

/** `messages` cut into `sendBatch` calls: at most MESSAGES_A_SEND and SEND_BYTES of bodies each. */
export function sendsOf(messages: readonly DaysMessage[]): DaysMessage[][] {
  const sends: DaysMessage[][] = [];
  let current: DaysMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = bytesOf(message);
    if (current.length > 0 && (current.length === MESSAGES_A_SEND || bytes + size > SEND_BYTES)) {
      sends.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) sends.push(current);
  return sends;
}

/** Sends `days` to the queue; answers the messages sent. */
export async function handOut(queue: Queue, days: readonly DueDay[], clock: Clock): Promise<number> {
  const messages = messagesOf(days, clock);
  for (const send of sendsOf(messages))
    await queue.sendBatch(send.map((body) => ({ body, contentType: "json" as const })));
  return messages.length;
}

function isDaysMessage(body: unknown): body is DaysMessage {
  return typeof body === "object" && body !== null && (body as { kind?: unknown }).kind === "reconcile-days";
}

/**
 * A message's days as stored now (their state, seal and re-verifications, the books' changes as now), but
 * those checked since the pass handed them out (by a later pass, or by another message of the same day):
 * that check read every source later than this one would, and a change after it makes the day due again.
 */
export async function daysToCheck(db: D1Database, days: readonly HandedDay[], clock: Clock): Promise<DueDay[]> {
  const stored = await knownDays(db, days);
  return days.flatMap((day): DueDay[] => {
    const known = stored.get(dayKey(day));
    if (known === undefined) return [{ ...day, state: null, seal: null, firstSeenAt: null, verified: 0 }];
    if (known.checkedAt > clock.now) return [];
    const { checkedAt: _, ...due } = known;
    return [{ ...due, why: day.why, booksChanges: Math.max(day.booksChanges, due.booksChanges) }];
  });
}

/** The queue's consumer: each message's days checked and stored; a message that fails is retried. */
export async function checkHandedOut(batch: MessageBatch, env: ReconcileEnv): Promise<void> {
  for (const message of batch.messages) {
    if (!isDaysMessage(message.body)) {
      log("error", "reconciliation message of no known kind", { component: "reconciliation", id: message.id });
      message.ack();
      continue;
    }
    try {
      const { clock } = message.body;
      const days = await daysToCheck(env.DB, message.body.days, clock);
      const checked = await checkDays(env, days, clock);
      const statements = checkedDayStatements(env.DB, checked, clock.now);
      for (let start = 0; start < statements.length; start += 200)
        await env.DB.batch(statements.slice(start, start + 200));
      for (const { outcome } of checked)
        for (const { subject: _, ...mismatch } of outcome.findings.all())
          log("error", "reconciliation mismatch", { component: "reconciliation", ...mismatch });
      for (const alert of dayAlerts(checked, clock.now))
        log("error", "reconciliation alert", { component: "reconciliation", alert });
      message.ack();
    } catch (error) {
      log("error", "reconciliation message failed", {
        component: "reconciliation",
        id: message.id,
        error: String(error),
      });
      message.retry({ delaySeconds: 60 });
    }
  }
}
