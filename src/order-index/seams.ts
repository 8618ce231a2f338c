/**
 * The fault seams of the order index's passes: the backfill's calls between two of its writes
 * (src/order-index/order-index-backfill.ts). The fault-injection tests have a case for each.
 */
export const ORDER_INDEX_SEAMS = {
  /** backfill: an order asked to write its row to its books. */
  backfillAsk: "order-index.backfill-ask",
  /** backfill: the cursor moved past what a step asked. */
  backfillSave: "order-index.backfill-save",
  /** backfill: its last step drops the order index, before it saves itself finished. */
  backfillDrop: "order-index.backfill-drop",
} as const;
