/** A posting request (and a limit request) as the operator API and the console show it. */
import { toAmountNumber } from "../pricing/money";
import { requestStatus } from "./approval-rules";
import type { PostingRequest } from "./approval-store";
import type { LimitRequest } from "./limit-request-store";

export function postingRequestView(request: PostingRequest, now: number) {
  return {
    id: request.id,
    clientId: request.clientId,
    currency: request.currency,
    kind: request.kind,
    amount: toAmountNumber(request.amount),
    reason: request.reason,
    note: request.note,
    idempotencyKey: request.idempotencyKey,
    status: requestStatus(request.status, request.expiresAt, now),
    failure: request.failure,
    requestedBy: { actor: request.requestedBy, name: request.requestedByName },
    requestedAt: request.requestedAt,
    expiresAt: request.expiresAt,
    decidedBy: request.decidedBy === null ? null : { actor: request.decidedBy, name: request.decidedByName },
    decidedAt: request.decidedAt,
    entrySeq: request.entrySeq,
  };
}

export function limitRequestView(request: LimitRequest, now: number) {
  return {
    id: request.id,
    currency: request.currency,
    limit: request.amount === null ? null : toAmountNumber(request.amount),
    previous: request.previous === null ? null : toAmountNumber(request.previous),
    status: requestStatus(request.status, request.expiresAt, now),
    requestedBy: { actor: request.requestedBy, name: request.requestedByName },
    requestedAt: request.requestedAt,
    expiresAt: request.expiresAt,
    decidedBy: request.decidedBy === null ? null : { actor: request.decidedBy, name: request.decidedByName },
    decidedAt: request.decidedAt,
  };
}
