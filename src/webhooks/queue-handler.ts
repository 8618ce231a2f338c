/**
 * The Worker's `queue` handler: routes a batch by the queue it came from (wrangler.toml consumers).
 * src/index.ts exports it in its default export: `export default { fetch, queue }`.
 */
import { deliverWebhooks } from "./consumer";
import { keepDeadLetters } from "./dead-letter-store";
import { componentLog } from "../kernel/log";

const log = componentLog("queue");

export const WEBHOOK_QUEUE = "order-webhooks";
export const WEBHOOK_DEAD_LETTER_QUEUE = "order-webhooks-dlq";

export async function queue(batch: MessageBatch, env: Env, _ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    case WEBHOOK_QUEUE:
      return deliverWebhooks(batch, env);
    case WEBHOOK_DEAD_LETTER_QUEUE:
      return keepDeadLetters(batch, env);
    default:
      // A consumer bound in wrangler.toml without a route here: leave the messages to the queue's retries.
      log("error", "no handler for queue", { queue: batch.queue });
      batch.retryAll({ delaySeconds: 60 });
  }
}
