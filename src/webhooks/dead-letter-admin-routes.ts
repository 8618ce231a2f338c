/** Operator API: webhooks that could not be delivered (kept by src/webhooks/dead-letter-store.ts). */
import type { IRequest } from "itty-router";
import { fail } from "../kernel/failures";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { listDeadLetters } from "./dead-letter-store";
import { replayAudited } from "./dead-letter-actions";
import { adminCaller } from "../http/admin-auth";
import { parseParams, parseQuery } from "../http/params";
import { DeadLetterPage, DeadLetterParams, DeadLetterQuery, ReplayedDeadLetter } from "./dead-letter-admin-schemas";
import { deadLetterExamples } from "./dead-letter-examples";

/** GET /admin/webhooks/dead-letters?clientId=&status=&limit=&before=: newest first. */
export async function listDeadLetterRoute(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(DeadLetterQuery, request);
  return ok("Dead letters", await listDeadLetters(context.env.DB, query));
}

/**
 * POST /admin/webhooks/dead-letters/:id/replay: sends the event to the webhook queue again (attempts start
 * afresh, same event id). A dead letter is replayed once: again is 409.
 */
export async function replayDeadLetterRoute(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = adminCaller(context);
  const { id } = parseParams(DeadLetterParams, request);
  const result = await replayAudited(context.env, actor, id);
  if (!result.ok)
    fail(result.reason === "not_found" ? "dead_letter_not_found" : "dead_letter_already_replayed", { id });
  return ok("Dead letter replayed", { deadLetter: result.deadLetter });
}

/** This file's routes, each with its description in GET /openapi.json. */
export const deadLetterRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/webhooks/dead-letters",
    handler: listDeadLetterRoute,
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
  {
    method: "POST",
    path: "/admin/webhooks/dead-letters/:id/replay",
    handler: replayDeadLetterRoute,
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
];
