import type { z } from "zod";
import { Money, toAmountNumber, type Money as MoneyT } from "../pricing/money";
import type { LedgerKindSchema } from "./wallet-schemas";

export type LedgerKind = z.infer<typeof LedgerKindSchema>;

/** One append-only row of a wallet's ledger. `amount` is signed: credits positive, debits negative. */
export interface LedgerEntry {
  seq: number;
  key: string;
  kind: LedgerKind;
  amount: string;
  balanceAfter: string;
  orderId: string | null;
  /** The operator's internal reason (a posting), or what the service wrote (an order's reference). */
  reason: string | null;
  createdAt: number;
  /** The client-facing note of an operator's posting: what the client's books show (null: none). */
  note: string | null;
}

/** An entry as the operator's API shows it: amounts as JSON numbers (an export keeps the decimal strings). */
export function ledgerEntryView<E extends LedgerEntry>(
  entry: E,
): Omit<E, "amount" | "balanceAfter"> & { amount: number; balanceAfter: number } {
  return { ...entry, amount: toAmountNumber(entry.amount), balanceAfter: toAmountNumber(entry.balanceAfter) };
}

export type DebitDecision = { ok: true; balanceAfter: MoneyT } | { ok: false; balance: MoneyT };

/** A debit never takes a balance below zero. */
export function decideDebit(balance: MoneyT, amount: MoneyT): DebitDecision {
  if (amount.isNegative()) throw new Error("debit amount must not be negative");
  if (balance.lessThan(amount)) return { ok: false, balance };
  return { ok: true, balanceAfter: balance.minus(amount) };
}

export function ledgerSum(entries: Iterable<Pick<LedgerEntry, "amount">>): MoneyT {
  let total = new Money(0);
  for (const entry of entries) total = total.plus(entry.amount);
  return total;
}

/**
 * The name of a wallet's Durable Object. A wallet's first object (generation 0) keeps the name it always
 * had; an object it moved to is named by its placement too, since an object stays where it was created.
 */
export function walletName(clientId: string, currency: string, generation = 0, region: string | null = null): string {
  return generation === 0 ? `${clientId}:${currency}` : `${clientId}:${currency}:${generation}:${region ?? "any"}`;
}
