/** Operator API: exchange rates. */
import { fail } from "../kernel/failures";
import { setExchangeRate } from "./rate-actions";
import { route, type Route } from "../http/route";
import { pairProblem } from "./rate-rules";
import { allRates, type RateRow } from "./rate-store";
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

/** This file's routes, each with its description in GET /openapi.json. */
export const rateRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/exchange-rates",
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
    async ({ env, ok }) => ok("Exchange rates", { rates: (await allRates(env.DB)).map(rateView) }),
  ),
  route(
    {
      method: "PUT",
      path: "/admin/exchange-rates/:base/:target",
      operationId: "adminSetRate",
      example: rateExamples.adminSetRate,
      tag: "Admin: exchange rates",
      summary: "Set the rate from a wallet currency (base) to a product currency (target)",
      description: "1 unit of base buys `rate` units of target. Orders already created keep the rate they froze.",
      auth: "admin",
      role: "admin",
      params: {
        schema: RateParams,
        check: ({ base, target }: { base: string; target: string }) => {
          const problem = pairProblem(base, target);
          if (problem !== null) fail("invalid_parameters", { reason: problem });
        },
      },
      body: SetRateRequest,
      data: AdminRateView,
      messages: ["Exchange rate set"],
      errors: [],
    },
    async ({ params: { base, target }, body, caller, env, ok }) =>
      ok("Exchange rate set", rateView(await setExchangeRate(env.DB, caller, base, target, body.rate))),
  ),
];
