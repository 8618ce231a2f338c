/** How the console shows times and amounts. */
import { Money } from "../pricing/money";

/** A unix-ms time as UTC, to the second: the same for every operator, wherever they sit. */
export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** An exact decimal amount as stored (never through a float). */
export function amount(value: string | Money, currency?: string): string {
  const text = new Money(value.toString()).toFixed();
  return currency === undefined ? text : `${text} ${currency}`;
}
