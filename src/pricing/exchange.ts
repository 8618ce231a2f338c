import { Money, roundUpToMinor, type Money as MoneyT } from "./money";

/** A rate frozen into an order: 1 unit of baseCurrency (the wallet's) buys `rate` units of targetCurrency. */
export interface ExchangeRate {
  baseCurrency: string;
  targetCurrency: string;
  rate: string;
  modifiedAt: number;
}

/** Wallet charge for an amount in the product currency: amount / rate, rounded up to the wallet's minor unit. */
export function chargeInWallet(amount: MoneyT, walletCurrency: string, rate: ExchangeRate | null): MoneyT {
  if (rate === null) return roundUpToMinor(amount, walletCurrency);
  if (rate.baseCurrency !== walletCurrency) throw new Error("rate does not start from the wallet currency");
  return roundUpToMinor(amount.dividedBy(new Money(rate.rate)), walletCurrency);
}
