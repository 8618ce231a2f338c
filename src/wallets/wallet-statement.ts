/**
 * The client's own books of a wallet: its movements as the client's routes show them (with each order's
 * reference), and a statement of a period, streamed as CSV or JSON. Read from the wallet's objects
 * (wallet-history.ts), never written. An order's reference is the one its charge names in the ledger;
 * only for one the ledger does not name are the orders asked (`OrderReferences`, handed in by the
 * composition root, src/app.ts, since wallets do not import orders).
 */
import { csvLine } from "../kernel/csv-export";
import { logFailure } from "../kernel/log";
import { Money, toAmountNumber } from "../pricing/money";
import { balanceBefore, movements, type Movement } from "./wallet-history";
import type { RegisteredWallet } from "./wallet-registry-store";

/** The client's own references of its orders among `orderIds`, by order id (another client's are not found). */
export type OrderReferences = (env: Env, clientId: string, orderIds: readonly string[]) => Promise<Map<string, string>>;

/** A movement as the client's ledger and statement show it. */
export function movementView(movement: Movement, references: ReadonlyMap<string, string>) {
  return {
    createdAt: movement.createdAt,
    kind: movement.kind,
    amount: toAmountNumber(movement.amount),
    balanceAfter: toAmountNumber(movement.balanceAfter),
    orderId: movement.orderId,
    reference: movement.reference ?? (movement.orderId === null ? null : (references.get(movement.orderId) ?? null)),
    sku: movement.sku,
    note: movement.note,
  };
}

export type MovementView = ReturnType<typeof movementView>;

/** The orders the movements name whose reference the wallet's ledger did not give, once each. */
export function orderIdsOf(shown: readonly Movement[]): string[] {
  return [
    ...new Set(
      shown.flatMap((movement) => (movement.orderId === null || movement.reference !== null ? [] : [movement.orderId])),
    ),
  ];
}

/** The statement's CSV columns, in order. */
export const STATEMENT_CSV_COLUMNS = [
  "time",
  "kind",
  "order_id",
  "reference",
  "sku",
  "note",
  "amount",
  "balance_after",
] as const;

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** One movement's CSV line; every text cell is neutralised against spreadsheet formulas (csv-export.ts). */
export function statementCsvLine(view: MovementView): string {
  return csvLine([
    isoTime(view.createdAt),
    view.kind,
    view.orderId,
    view.reference,
    view.sku,
    view.note,
    view.amount,
    view.balanceAfter,
  ]);
}

/** The line of the balance at the start or the end of the period. */
export function balanceLine(kind: "opening_balance" | "closing_balance", at: number, balance: Money): string {
  return csvLine([isoTime(at), kind, null, null, null, null, null, toAmountNumber(balance)]);
}

export interface StatementPeriod {
  /** ms since the epoch, inclusive. */
  from: number;
  /** ms since the epoch, inclusive. */
  to: number;
}

/** How many ledger entries a statement reads at a time: what it holds in memory, besides the reader's buffer. */
const STATEMENT_BATCH = 500;

/**
 * The statement of the client's wallet for the period: the opening balance (the balance just before
 * `from`), every movement of the period oldest first, and the closing balance, which is the opening
 * balance plus the movements, summed exactly. Streamed as the reader pulls, a batch of entries at a time,
 * so that a busy month is never held whole; a failure midway ends the stream with an error, so that a
 * download that broke off lacks its closing line rather than looking complete.
 */
export function statementStream(
  env: Env,
  clientId: string,
  wallet: RegisteredWallet,
  period: StatementPeriod,
  references: OrderReferences,
  format: "csv" | "json",
  batch = STATEMENT_BATCH,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const batches = movements(env, clientId, wallet, { from: period.from }, { to: period.to, batch });
  let balance: Money | null = null;
  let rows = 0;
  const json = format === "json";
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (balance === null) {
            balance = await balanceBefore(env, clientId, wallet, period.from);
            controller.enqueue(
              encoder.encode(
                json
                  ? `{"message":"Statement","data":{"currency":${JSON.stringify(wallet.currency)},"from":${period.from},"to":${period.to},"openingBalance":${toAmountNumber(balance)},"movements":[`
                  : csvLine([...STATEMENT_CSV_COLUMNS]) + balanceLine("opening_balance", period.from, balance),
              ),
            );
            return;
          }
          const next = await batches.next();
          if (next.done === true) {
            controller.enqueue(
              encoder.encode(
                json
                  ? `],"closingBalance":${toAmountNumber(balance)}}}`
                  : balanceLine("closing_balance", period.to, balance),
              ),
            );
            controller.close();
            return;
          }
          const unnamed = orderIdsOf(next.value);
          const found = unnamed.length === 0 ? new Map<string, string>() : await references(env, clientId, unnamed);
          let text = "";
          for (const movement of next.value) {
            balance = balance.plus(movement.amount);
            const view = movementView(movement, found);
            text += json ? `${rows === 0 ? "" : ","}${JSON.stringify(view)}` : statementCsvLine(view);
            rows += 1;
          }
          controller.enqueue(encoder.encode(text));
        } catch (error) {
          logFailure(error, { step: "wallets.statement", clientId });
          controller.error(error);
        }
      },
      async cancel() {
        await batches.return(undefined);
      },
    },
    // One batch waits at most: the next is read when the reader has taken it.
    { highWaterMark: 1 },
  );
}
