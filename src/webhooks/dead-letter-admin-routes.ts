/** Operator API: webhooks that could not be delivered (kept by src/webhooks/dead-letter-store.ts). */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { listDeadLetters } from "./dead-letter-store";
import { replayAudited } from "./dead-letter-actions";
import { DeadLetterPage, DeadLetterParams, DeadLetterQuery, ReplayedDeadLetter } from "./dead-letter-admin-schemas";
import { deadLetterExamples } from "./dead-letter-examples";

/** This file's routes, each with its description in GET /openapi.json. */
export const deadLetterRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/webhooks/dead-letters",
      operationId: "adminListDeadLetters",
      example: deadLetterExamples.adminListDeadLetters,
      tag: "Admin: webhooks",
      summary: "Webhooks that could not be delivered, newest first",
      description:
        "Webhook deliveries that failed every attempt, newest first: the event, where it was going, how often it was tried and the last error. `status` chooses pending (default), replayed or all; page with `before` (the `nextBefore` of the previous page).",
      auth: "admin",
      role: "viewer",
      query: DeadLetterQuery,
      data: DeadLetterPage,
      messages: ["Dead letters"],
      errors: [],
    },
    async ({ query, env, ok }) => ok("Dead letters", await listDeadLetters(env.DB, query)),
  ),
  route(
    {
      method: "POST",
      path: "/admin/webhooks/dead-letters/:id/replay",
      operationId: "adminReplayDeadLetter",
      example: deadLetterExamples.adminReplayDeadLetter,
      tag: "Admin: webhooks",
      summary: "Send a dead-lettered webhook again",
      description:
        "Queued again with the same event id (receivers dedupe on it); delivery attempts start afresh. A dead letter is replayed once.",
      auth: "admin",
      role: "operator",
      params: DeadLetterParams,
      data: ReplayedDeadLetter,
      messages: ["Dead letter replayed"],
      errors: ["dead_letter_not_found", "dead_letter_already_replayed"],
    },
    async ({ params: { id }, caller, env, ok }) => {
      const result = await replayAudited(env, caller, id);
      if (!result.ok)
        fail(result.reason === "not_found" ? "dead_letter_not_found" : "dead_letter_already_replayed", { id });
      return ok("Dead letter replayed", { deadLetter: result.deadLetter });
    },
  ),
];
