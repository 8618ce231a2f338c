/**
 * The Worker's `queue` handler: routes a batch by the queue it came from (wrangler.toml consumers).
 * src/index.ts exports it in its default export: `export default { fetch, queue }`.
 */
import { deliverWebhooks } from "./consumer";
import { deliverToEndpoints, isEndpointMessage } from "./endpoint-delivery";
import { keepDeadLetters } from "./dead-letter-store";
import { componentLog } from "../kernel/log";

const log = componentLog("queue");

export const WEBHOOK_QUEUE = "order-webhooks";
export const WEBHOOK_DEAD_LETTER_QUEUE = "order-webhooks-dlq";

export async function queue(batch: MessageBatch, env: Env, _ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    case WEBHOOK_QUEUE: {
      // One queue for both: an order's webhookUrl (as ever) and the client's account endpoints.
      const forEndpoints = batch.messages.filter((message) => isEndpointMessage(message.body));
      const forOrders = batch.messages.filter((message) => !isEndpointMessage(message.body));
      await Promise.all([
        forOrders.length === 0 ? undefined : deliverWebhooks({ ...batch, messages: forOrders }, env),
        forEndpoints.length === 0 ? undefined : deliverToEndpoints(forEndpoints, env),
      ]);
      return;
    }
    case WEBHOOK_DEAD_LETTER_QUEUE:
      return keepDeadLetters(batch, env);
    default:
      // A consumer bound in wrangler.toml without a route here: leave the messages to the queue's retries.
      log("error", "no handler for queue", { queue: batch.queue });
      batch.retryAll({ delaySeconds: 60 });
  }
}
