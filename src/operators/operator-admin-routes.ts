/** Operator API: named operators (create with a token shown once, list, change a role, revoke). */
import type { IRequest } from "itty-router";
import { adminCaller } from "../http/admin-auth";
import { fail } from "../kernel/failures";
import { PageQuery, parseBody, parseParams, parseQuery } from "../http/params";
import { jsonResponse, ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { DEFAULT_PAGE_SIZE } from "../kernel/paging";
import { changeRole, createOperator, listOperators, revokeOperator, type OperatorChange } from "./operators";
import { operatorExamples } from "./operator-examples";
import {
  ChangedOperator,
  ChangeRoleRequest,
  CreatedOperator,
  CreateOperatorRequest,
  OperatorPage,
  OperatorParams,
} from "./operator-admin-schemas";

/** POST /admin/operators: 201 with the operator and its token, which no later answer shows. */
export async function createOperatorRoute(request: IRequest, context: RequestContext): Promise<Response> {
  const caller = adminCaller(context);
  const body = await parseBody(CreateOperatorRequest, request, context.env);
  return jsonResponse({ message: "Operator created", data: await createOperator(context.env.DB, caller, body) }, 201);
}

/** GET /admin/operators?after=&limit=: operators by id, revoked ones included. */
export async function listOperatorsRoute(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(PageQuery, request);
  return ok("Operators", await listOperators(context.env.DB, query.after ?? "", query.limit ?? DEFAULT_PAGE_SIZE));
}

function answer(operatorId: string, change: OperatorChange, message: string): Response {
  if (!change.ok) fail(change.reason === "not_found" ? "operator_not_found" : "operator_revoked", { operatorId });
  return ok(message, { operator: change.operator, changed: change.changed });
}

/** POST /admin/operators/:operatorId/role: a live operator's new role, effective on its next request. */
export async function changeRoleRoute(request: IRequest, context: RequestContext): Promise<Response> {
  const caller = adminCaller(context);
  const { operatorId } = parseParams(OperatorParams, request);
  const { role } = await parseBody(ChangeRoleRequest, request, context.env);
  return answer(operatorId, await changeRole(context.env.DB, caller, operatorId, role), "Operator role changed");
}

/** POST /admin/operators/:operatorId/revoke: the token stops working and the console sessions end. */
export async function revokeOperatorRoute(request: IRequest, context: RequestContext): Promise<Response> {
  const caller = adminCaller(context);
  const { operatorId } = parseParams(OperatorParams, request);
  return answer(operatorId, await revokeOperator(context.env.DB, caller, operatorId), "Operator revoked");
}

/** This file's routes, each with its description in GET /openapi.json. */
export const operatorRoutes: Route[] = [
  {
    method: "POST",
    path: "/admin/operators",
    handler: createOperatorRoute,
    operationId: "adminCreateOperator",
    example: operatorExamples.adminCreateOperator,
    tag: "Admin: operators",
    summary: "Create a named operator and its token",
    description:
      "A person who runs the service, with one role. Answers 201 with the operator's token, in this answer only (the service keeps its SHA-256): it works as `Authorization: Bearer` on every `/admin` route the role allows, and signs the operator in to the console. Audited as `operator.create`.",
    auth: "admin",
    role: "admin",
    status: 201,
    body: CreateOperatorRequest,
    data: CreatedOperator,
    messages: ["Operator created"],
    errors: [],
  },
  {
    method: "GET",
    path: "/admin/operators",
    handler: listOperatorsRoute,
    operationId: "adminListOperators",
    example: operatorExamples.adminListOperators,
    tag: "Admin: operators",
    summary: "Operators by id",
    description:
      "Every operator, revoked ones included (with `revokedAt`), by id. Page with `after` (the `next` of the previous page) and `limit`. Tokens are never shown again.",
    auth: "admin",
    role: "viewer",
    query: PageQuery,
    data: OperatorPage,
    messages: ["Operators"],
    errors: [],
  },
  {
    method: "POST",
    path: "/admin/operators/:operatorId/role",
    handler: changeRoleRoute,
    operationId: "adminChangeOperatorRole",
    example: operatorExamples.adminChangeOperatorRole,
    tag: "Admin: operators",
    summary: "Change an operator's role",
    description:
      "Takes effect on the operator's next request, console sessions included. The same role again changes nothing (`changed: false`, no audit row); a revoked operator is 409. Audited as `operator.role` with `from` and `to`.",
    auth: "admin",
    role: "admin",
    params: OperatorParams,
    body: ChangeRoleRequest,
    data: ChangedOperator,
    messages: ["Operator role changed"],
    errors: ["operator_not_found", "operator_revoked"],
  },
  {
    method: "POST",
    path: "/admin/operators/:operatorId/revoke",
    handler: revokeOperatorRoute,
    operationId: "adminRevokeOperator",
    example: operatorExamples.adminRevokeOperator,
    tag: "Admin: operators",
    summary: "Revoke an operator",
    description:
      "The operator's token is refused from the next request on (403 `unauthenticated`) and its console sessions end, in one write with the audit row (`operator.revoke`). Revoking again changes nothing (`changed: false`). There is no un-revoke: create the operator again, with a new token.",
    auth: "admin",
    role: "admin",
    params: OperatorParams,
    data: ChangedOperator,
    messages: ["Operator revoked"],
    errors: ["operator_not_found"],
  },
];
