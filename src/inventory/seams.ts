/**
 * The inventory's fault seams (see kernel/faults.ts): each D1 call that reserves, releases or sells
 * operator-loaded codes, named here as data so that the fault-injection suite can check it has a case for each.
 */
export const INVENTORY_SEAMS = {
  /** The one D1 batch that makes an order hold exactly its lines' codes (reserveCodes). */
  reserve: "inventory.reserve",
  /** The D1 statement that returns an order's reserved codes to sale (releaseCodes). */
  release: "inventory.release",
  /** The one D1 batch that sells a line's codes to its order (sellReserved). */
  sell: "inventory.sell",
} as const;

export type InventorySeam = (typeof INVENTORY_SEAMS)[keyof typeof INVENTORY_SEAMS];

export const ALL_INVENTORY_SEAMS: readonly InventorySeam[] = Object.values(INVENTORY_SEAMS);
