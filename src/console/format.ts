/** How the console shows times and amounts: one format for each, on every page. */
import { Money } from "../pricing/money";
import { html, type Html } from "./html";

/**
 * A unix-ms time as UTC, to the second, the same for every operator wherever they sit ("2026-12-07
 * 06:27:34 UTC"), in a <time> whose datetime is the exact instant; "–" for none.
 */
export function when(ms: number | null | undefined): Html {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return html`–`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace("T", " ")} UTC</time>`;
}

/** An exact decimal amount as stored (never through a float). */
export function amount(value: string | Money, currency?: string): string {
  const text = new Money(value.toString()).toFixed();
  return currency === undefined ? text : `${text} ${currency}`;
}
