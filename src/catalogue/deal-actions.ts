/**
 * What an operator does to a client's deals, whichever way they asked (the /admin deal routes in
 * catalogue-admin-routes.ts, or the console's client page): set a deal's terms, or delete it. Each change
 * is written in one D1 batch with its audit row, under the actor it is given.
 */
import { auditStatement } from "../audit/audit-store";
import { requireClient } from "../clients/client-store";
import { fail } from "../kernel/failures";
import type { AdjustmentMode, DealState } from "../pricing/deal";
import { forgetCatalogueCache } from "./catalogue-cache";
import { canonicalDealTerms } from "./catalogue-rules";
import { deleteDealStatement, findDeal, requireProduct, upsertDealStatement, type DealRow } from "./catalogue-store";

/** Who a change's audit row names, and the request it came in: as the audit log takes it. */
export type DealActor = Parameters<typeof auditStatement>[1];

/** A deal's terms as asked; an absent fee or discount is zero. */
export interface DealTermsRequest {
  dealState?: DealState;
  fee?: { amount: string | number; adjustmentMode: AdjustmentMode };
  discount?: { amount: string | number; adjustmentMode: AdjustmentMode };
}

/**
 * The client's fee and discount on the SKU, replacing any (404 client_not_found or sku_not_found; 400
 * invalid_request_body for terms the SKU's currency cannot take). Answers the stored row.
 */
export async function upsertDeal(
  env: Env,
  actor: DealActor,
  clientId: string,
  sku: string,
  body: DealTermsRequest,
): Promise<DealRow> {
  const db = env.DB;
  await requireClient(db, clientId);
  const product = await requireProduct(db, sku);
  const terms = canonicalDealTerms(body, product.currency);
  if (!terms.ok) fail("invalid_request_body", { issues: terms.issues });
  const { fee, discount } = terms;
  const dealState = body.dealState ?? "active";
  const results = await db.batch([
    upsertDealStatement(db, { clientId, sku, dealState, fee, discount }, Date.now()),
    auditStatement(db, actor, "deal.upsert", `client:${clientId}`, { sku, dealState, fee, discount }),
  ]);
  // This isolate prices its next order with the new terms; others within CATALOGUE_CACHE_SECONDS.
  forgetCatalogueCache();
  return (results[0]!.results as unknown as DealRow[])[0]!;
}

/** Back to no fee and no discount (404 deal_not_found). Answers the row as it was. */
export async function deleteDeal(env: Env, actor: DealActor, clientId: string, sku: string): Promise<DealRow> {
  const db = env.DB;
  const row = await findDeal(db, clientId, sku);
  if (row === null) fail("deal_not_found", { clientId, sku });
  await db.batch([
    deleteDealStatement(db, clientId, sku),
    auditStatement(db, actor, "deal.delete", `client:${clientId}`, { sku }),
  ]);
  forgetCatalogueCache();
  return row;
}
