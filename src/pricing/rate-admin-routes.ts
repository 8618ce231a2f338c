/** Operator API: exchange rates. */
import type { IRequest } from "itty-router";
import { fail } from "../kernel/failures";
import { ok } from "../http/responses";
import { setExchangeRate } from "./rate-actions";
import type { RequestContext, Route } from "../http/route";
import { pairProblem } from "./rate-rules";
import { allRates, type RateRow } from "./rate-store";
import { adminCaller } from "../http/admin-auth";
import { parseBody, parseParams } from "../http/params";
import { AdminRateView, RateList, RateParams, SetRateRequest } from "./rate-admin-schemas";
import { rateExamples } from "./rate-examples";

function rateView(row: RateRow) {
  return {
    baseCurrency: row.base_currency,
    targetCurrency: row.target_currency,
    rate: Number(row.rate),
    updatedAt: row.updated_at,
  };
}

/**
 * PUT /admin/exchange-rates/:base/:target: 1 base (wallet currency) buys `rate` target (product currency).
 * Orders already created keep the rate they froze; new orders use this one.
 */
export async function setRate(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = adminCaller(context);
  const { base, target } = parseParams(RateParams, request);
  const problem = pairProblem(base, target);
  if (problem !== null) fail("invalid_parameters", { reason: problem });
  const body = await parseBody(SetRateRequest, request, context.env);
  return ok("Exchange rate set", rateView(await setExchangeRate(context.env.DB, actor, base, target, body.rate)));
}

/** GET /admin/exchange-rates: every rate, by base then target. */
export async function listRates(request: IRequest, context: RequestContext): Promise<Response> {
  return ok("Exchange rates", { rates: (await allRates(context.env.DB)).map(rateView) });
}

/** This file's routes, each with its description in GET /openapi.json. */
export const rateRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/exchange-rates",
    handler: listRates,
    operationId: "adminListRates",
    example: rateExamples.adminListRates,
    tag: "Admin: exchange rates",
    summary: "Every exchange rate",
    description:
      "Every exchange rate, by base (wallet) currency then target (product) currency. A pair that is not listed cannot be used: an order paying for that product currency from that wallet is 500 exchange_not_supported.",
    auth: "admin",
    role: "viewer",
    data: RateList,
    messages: ["Exchange rates"],
    errors: [],
  },
  {
    method: "PUT",
    path: "/admin/exchange-rates/:base/:target",
    handler: setRate,
    operationId: "adminSetRate",
    example: rateExamples.adminSetRate,
    tag: "Admin: exchange rates",
    summary: "Set the rate from a wallet currency (base) to a product currency (target)",
    description: "1 unit of base buys `rate` units of target. Orders already created keep the rate they froze.",
    auth: "admin",
    role: "admin",
    params: RateParams,
    body: SetRateRequest,
    data: AdminRateView,
    messages: ["Exchange rate set"],
    errors: [],
  },
];
