/**
 * What the order lists show of an indexed order, and the filter a list query asks for: shared by the
 * client's list (order-list-routes.ts) and the operator's list and export (order-admin-routes.ts).
 */
import { fail } from "../http/errors";
import { toAmountNumber } from "../pricing/money";
import { parseCursor, type IndexCursor, type IndexFilter, type IndexRow } from "./order-index";

/** What a client's list shows of an order. */
export function orderSummary(row: IndexRow) {
  return {
    id: row.id,
    reference: row.reference,
    state: row.state,
    wallet: row.wallet,
    total: toAmountNumber(row.total),
    createdAt: row.createdAt,
    modifiedAt: row.modifiedAt,
    expiresAt: row.expiresAt,
    skus: row.skus,
  };
}

/** The filter and cursor of a list query, or 400 invalid_parameters for a cursor or a period that cannot be. */
export function filterOf(query: IndexFilter & { after?: string; limit?: number }): { filter: IndexFilter; after: IndexCursor | null } {
  const after = query.after === undefined ? null : parseCursor(query.after);
  if (query.after !== undefined && after === null) fail("invalid_parameters", { issues: [{ path: "after", message: "not a cursor this service wrote (the `next` of a page)" }] });
  if (query.createdFrom !== undefined && query.createdTo !== undefined && query.createdFrom > query.createdTo) {
    fail("invalid_parameters", { issues: [{ path: "createdTo", message: "createdTo is before createdFrom" }] });
  }
  const { after: _after, limit: _limit, ...filter } = query;
  return { filter: Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)) as IndexFilter, after };
}

