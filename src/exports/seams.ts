/**
 * The fault seams of the exports across clients: every call a step makes between two of its writes goes
 * through `io()` (src/kernel/faults.ts) under one of these names; test/crash/export-faults.test.ts has a
 * case for each.
 */
export const EXPORT_SEAMS = {
  /** D1: the step claimed by its run, before anything is read. */
  claim: "exports.claim",
  /** R2: the step's numbered chunk written, before the cursor moves. */
  chunkWrite: "exports.chunk-write",
  /** D1: the cursor moved past the step, once its chunk is written. */
  cursorMove: "exports.cursor-move",
  /** Queue: the next step handed on, once the cursor has moved. */
  handOn: "exports.hand-on",
} as const;

export type ExportSeam = (typeof EXPORT_SEAMS)[keyof typeof EXPORT_SEAMS];
