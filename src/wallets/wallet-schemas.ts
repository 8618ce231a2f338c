import * as z from "zod";
import { CurrencyCode } from "../pricing/amount-schemas";

/** What a ledger entry records: the one list of kinds (`LedgerKind` in ledger.ts is inferred from it). */
export const LedgerKindSchema = z.enum([
  "top_up",
  "adjustment",
  "order_charge",
  "order_refund",
  "order_void",
  "move_out",
  "move_in",
]);

export const WalletView = z.object({ currency: CurrencyCode, balance: z.number() });

/** GET /wallets: the calling client's wallets. */
export const WalletList = z.object({ wallets: z.array(WalletView) });
