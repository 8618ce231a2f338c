import { env } from "cloudflare:workers";
import { call, type ApiCall } from "./helpers";

/** The ADMIN_TOKEN binding of vitest.config.ts. */
export const ADMIN_TOKEN = "test-admin-token";

export function admin(
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string | null; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiCall> {
  return call(method, path, {
    key: options.token === undefined ? ADMIN_TOKEN : options.token,
    body,
    headers: options.headers,
    rawBody: options.rawBody,
  });
}

/** Row counts of every table an operator action can change, to assert that a refused action changed nothing. */
export async function snapshot(): Promise<Record<string, unknown>> {
  const tables = ["clients", "api_keys", "wallets", "products", "exchange_rates", "deals", "codes", "audit_log"];
  const results = await env.DB.batch(tables.map((table) => env.DB.prepare(`SELECT * FROM ${table} ORDER BY rowid`)));
  return Object.fromEntries(tables.map((table, index) => [table, results[index]!.results]));
}

export async function auditActions(): Promise<string[]> {
  const { results } = await env.DB.prepare(`SELECT action FROM audit_log ORDER BY id`).all<{ action: string }>();
  return results.map((row) => row.action);
}

export const FIXED_PRODUCT = {
  productType: "fixed",
  name: "Test voucher",
  currency: "EUR",
  country: "DE",
  region: "Europe",
  quotes: ["10", "25.50"],
  supplier: "inventory",
};

export const RANGE_PRODUCT = {
  productType: "range",
  name: "Test top-up",
  currency: "USD",
  country: "US",
  region: "North America",
  minQuote: 5,
  maxQuote: "500",
  supplier: "sandbox",
};
