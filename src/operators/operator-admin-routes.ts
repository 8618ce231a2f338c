/** Operator API: named operators (create with a token shown once, list, change a role, revoke). */
import { fail } from "../kernel/failures";
import { PageQuery } from "../http/params";
import { route, type Route } from "../http/route";
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

/** The operator a change left, or 404 operator_not_found / 409 operator_revoked. */
function changed(operatorId: string, change: OperatorChange) {
  if (!change.ok) fail(change.reason === "not_found" ? "operator_not_found" : "operator_revoked", { operatorId });
  return { operator: change.operator, changed: change.changed };
}

/** This file's routes, each with its description in GET /openapi.json. */
export const operatorRoutes: Route[] = [
  route(
    {
      method: "POST",
      path: "/admin/operators",
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
    async ({ body, caller, env, ok }) => ok("Operator created", await createOperator(env.DB, caller, body)),
  ),
  route(
    {
      method: "GET",
      path: "/admin/operators",
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
    async ({ query, env, ok }) =>
      ok("Operators", await listOperators(env.DB, query.after ?? "", query.limit ?? DEFAULT_PAGE_SIZE)),
  ),
  route(
    {
      method: "POST",
      path: "/admin/operators/:operatorId/role",
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
    async ({ params: { operatorId }, body: { role }, caller, env, ok }) =>
      ok("Operator role changed", changed(operatorId, await changeRole(env.DB, caller, operatorId, role))),
  ),
  route(
    {
      method: "POST",
      path: "/admin/operators/:operatorId/revoke",
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
    async ({ params: { operatorId }, caller, env, ok }) =>
      ok("Operator revoked", changed(operatorId, await revokeOperator(env.DB, caller, operatorId))),
  ),
];
