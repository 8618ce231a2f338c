/**
 * What an operator does to a SKU's sale, whichever way they asked (the /admin catalogue routes or the
 * console's catalogue page), audited under the actor given.
 */
import { auditStatementIfChanged, type AuditedBy } from "../audit/audit-store";
import { requireProduct, setActiveStatement } from "./catalogue-store";

/** Who the change's audit row names, as the audit log takes it. */
export type CatalogueActor = AuditedBy;

/**
 * Stops (false) or resumes (true) selling the SKU: 404 sku_not_found for an unknown one; a SKU already so
 * changes nothing and writes no audit row. The change and its row are one D1 batch, the row written only
 * if the update changed the SKU, so two operators disabling it at once leave one row, not two.
 */
export async function setProductActive(
  db: D1Database,
  actor: CatalogueActor,
  sku: string,
  active: boolean,
): Promise<void> {
  const product = await requireProduct(db, sku);
  if (product.active === active) return;
  await db.batch([
    setActiveStatement(db, sku, active, Date.now()),
    auditStatementIfChanged(db, actor, active ? "product.enable" : "product.disable", `product:${sku}`, {}),
  ]);
}
