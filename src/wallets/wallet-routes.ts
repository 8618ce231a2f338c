import type { IRequest } from "itty-router";
import { requireAdmin } from "../http/admin-auth";
import { issuesOf, readJson } from "../http/body";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext } from "../http/router";
import { Money, fitsMinorUnits, isKnownCurrency, toAmountNumber } from "../pricing/money";
import { walletName, type LedgerEntry } from "./ledger";
import { ClientIdParam, CurrencyParam, TopUpRequest } from "./schemas";

export function ledgerEntryView(entry: LedgerEntry) {
  return { ...entry, amount: toAmountNumber(new Money(entry.amount)), balanceAfter: toAmountNumber(new Money(entry.balanceAfter)) };
}

/**
 * POST /admin/wallets/:clientId/:currency/top-ups: credits a client's wallet, opening it if it is new.
 * The idempotency key makes a retried top-up add nothing; the same key with another amount is 409.
 */
export async function topUpWallet(request: IRequest, { env }: RequestContext): Promise<Response> {
  requireAdmin(request, env);
  const clientId = ClientIdParam.safeParse(request.params.clientId);
  const currency = CurrencyParam.safeParse(request.params.currency);
  if (!clientId.success || !currency.success || !isKnownCurrency(currency.data)) {
    fail("invalid_request_body", { reason: "unknown client id or currency in the path" });
  }
  const parsed = TopUpRequest.safeParse(await readJson(request, Number(env.MAX_BODY_BYTES)));
  if (!parsed.success) fail("invalid_request_body", issuesOf(parsed.error));
  const amount = new Money(String(parsed.data.amount));
  if (amount.isZero() || !fitsMinorUnits(amount, currency.data)) {
    fail("invalid_request_body", { reason: `amount must be positive with at most the minor units of ${currency.data}` });
  }
  const client = await env.DB.prepare(`SELECT id FROM clients WHERE id = ?1`).bind(clientId.data).first();
  if (client === null) fail("client_not_found", { clientId: clientId.data });
  await env.DB.prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at) VALUES (?1, ?2, ?3)`)
    .bind(clientId.data, currency.data, Date.now())
    .run();
  const wallet = env.WALLETS.get(env.WALLETS.idFromName(walletName(clientId.data, currency.data)));
  const result = await wallet.post({
    key: `top-up:${parsed.data.idempotencyKey}`,
    kind: "top_up",
    amount: amount.toFixed(),
    reason: parsed.data.reason,
  });
  if (!result.ok) {
    if (result.code === "idempotency_conflict") fail("idempotency_conflict", { idempotencyKey: parsed.data.idempotencyKey });
    fail("server_error");
  }
  const balance = new Money(await wallet.balance());
  return ok(result.replayed ? "Top-up already applied" : "Wallet topped up", {
    clientId: clientId.data,
    currency: currency.data,
    balance: toAmountNumber(balance),
    entry: ledgerEntryView(result.entry),
    replayed: result.replayed,
  });
}
