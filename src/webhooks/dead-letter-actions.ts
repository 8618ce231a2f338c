/**
 * An operator's replay of a dead letter, whichever way it was asked (POST /admin/webhooks/dead-letters/:id/
 * replay, or the console's dead-letters page): sent again once, and audited under the actor given.
 */
import { audit } from "../audit/audit-store";
import { replayDeadLetter, type ReplayResult } from "./dead-letter-store";

/** Who the replay's audit row names, as the audit log takes it. */
export type ReplayActor = Parameters<typeof audit>[1];

/** Replays the dead letter (once: see replayDeadLetter) and writes its audit row. */
export async function replayAudited(
  env: Pick<Env, "DB" | "WEBHOOKS">,
  actor: ReplayActor,
  id: number,
): Promise<ReplayResult> {
  const result = await replayDeadLetter(env, id);
  if (result.ok) {
    await audit(env.DB, actor, "webhook.dead_letter.replay", `dead_letter:${id}`, {
      eventId: result.deadLetter.eventId,
      clientId: result.deadLetter.clientId,
    });
  }
  return result;
}
