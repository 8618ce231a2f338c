/**
 * Who a console change is made by, as the domain's functions take it for their audit rows: the signed-in
 * operator, by id and name, and the request it came in.
 */
import type { AuditedBy } from "../audit/audit-store";
import type { PageContext } from "./page";

export function auditedBy({ operator, requestId }: Pick<PageContext, "operator" | "requestId">): AuditedBy {
  return { actor: { kind: "operator", id: operator.operatorId, name: operator.name }, requestId };
}
