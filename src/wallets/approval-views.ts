/** A posting request as the operator API and the console show it. */
import { toAmountNumber } from "../pricing/money";
import { requestStatus } from "./approval-rules";
import type { PostingRequest } from "./approval-store";

export function postingRequestView(request: PostingRequest, now: number) {
  return {
    id: request.id,
    clientId: request.clientId,
    currency: request.currency,
    kind: request.kind,
    amount: toAmountNumber(request.amount),
    reason: request.reason,
    idempotencyKey: request.idempotencyKey,
    status: requestStatus(request.status, request.expiresAt, now),
    requestedBy: { actor: request.requestedBy, name: request.requestedByName },
    requestedAt: request.requestedAt,
    expiresAt: request.expiresAt,
    decidedBy: request.decidedBy === null ? null : { actor: request.decidedBy, name: request.decidedByName },
    decidedAt: request.decidedAt,
    entrySeq: request.entrySeq,
  };
}
