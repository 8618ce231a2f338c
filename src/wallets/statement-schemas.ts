/**
 * Requests and answers of the client's ledger and statement routes (wallet-statement-routes.ts). Loaded
 * with the first such request or with GET /openapi.json, not when the Worker starts.
 */
import * as z from "zod";
import { Currency } from "../pricing/amount-schemas";

export const ClientWalletParams = z.object({ currency: Currency.meta({ examples: ["USD"] }) });

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

export const StatementQuery = z.object({
  from: Millis.describe("Start of the period, Unix ms, inclusive."),
  to: Millis.describe("End of the period, Unix ms, inclusive."),
});

export { LedgerPage, LedgerQuery } from "./admin-schemas";
