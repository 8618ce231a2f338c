/**
 * The wallet-days a pass hands to the reconciliation's queue (docs/operator-api.md, Reconciliation): those
 * beyond what one pass checks itself go out in messages of up to 100 days, and the queue's consumer
 * checks each message's days as the pass would, storing their decisions and findings. A message is
 * retried when its check fails; its days also stay due in D1 until a check of them is stored, so a lost
 * message is made up by a later pass.
 */
import { log } from "../kernel/log";
import { checkDays, checkedDayStatements, dayAlerts, type Clock } from "./day-runs";
import type { ReconcileEnv } from "./day-sources";
import type { DueDay } from "./day-store";

/** Wallet-days one message carries: about 200 object requests for its consumer. */
export const DAYS_A_MESSAGE = 100;

/** A message of the reconciliation's queue. */
export interface DaysMessage {
  kind: "reconcile-days";
  days: DueDay[];
  clock: Clock;
}

/** Sends `days` to the queue, DAYS_A_MESSAGE a message, up to 100 messages a send. */
export async function handOut(queue: Queue, days: readonly DueDay[], clock: Clock): Promise<number> {
  const messages: { body: DaysMessage }[] = [];
  for (let start = 0; start < days.length; start += DAYS_A_MESSAGE)
    messages.push({ body: { kind: "reconcile-days", days: days.slice(start, start + DAYS_A_MESSAGE), clock } });
  for (let start = 0; start < messages.length; start += 100) await queue.sendBatch(messages.slice(start, start + 100));
  return messages.length;
}

function isDaysMessage(body: unknown): body is DaysMessage {
  return typeof body === "object" && body !== null && (body as { kind?: unknown }).kind === "reconcile-days";
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
      const { days, clock } = message.body;
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
