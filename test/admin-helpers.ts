import { env } from "cloudflare:workers";
import { call, type ApiCall } from "./helpers";
import { serviceMode } from "../src/kernel/service-mode";
import { signExport, type LedgerExport } from "../src/wallets/ledger-backup";

/** The ADMIN_TOKEN binding of vitest.config.ts. */
export const ADMIN_TOKEN = "test-admin-token";
/** The LEDGER_EXPORT_KEY binding of vitest.config.ts. */
export const LEDGER_EXPORT_KEY = "test-ledger-export-key";

/** An export's signature as this deployment (its DEPLOYMENT var and mode) signs one with LEDGER_EXPORT_KEY. */
export function exportSignature(backup: LedgerExport): Promise<string> {
  return signExport(backup, LEDGER_EXPORT_KEY, { deployment: env.DEPLOYMENT, mode: serviceMode(env) });
}

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

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Sets an operator's creation `daysAgo` days back. Dual control takes an operator made less than a day
 * before a request to be possibly its requester's, and operators made by one credential within a day of
 * each other to be one person's (src/operators/colleague-rules.ts): a test's colleagues of long standing
 * are made days apart.
 */
export async function backdateOperator(id: string, daysAgo: number): Promise<void> {
  await env.DB.prepare(`UPDATE operators SET created_at = ?2 WHERE id = ?1`)
    .bind(id, Date.now() - daysAgo * DAY_MS)
    .run();
}

/** An operator made by `by` (the break-glass token unless given), `daysAgo` days back (0: now). */
export async function madeOperator(
  name: string,
  role: "viewer" | "operator" | "admin",
  daysAgo = 0,
  by: string = ADMIN_TOKEN,
): Promise<{ id: string; token: string; actor: string }> {
  const made = await admin("POST", "/admin/operators", { name, role }, { token: by });
  if (made.status !== 201) throw new Error(`operator not made: ${made.status} ${JSON.stringify(made.body)}`);
  const id = made.body.data.operator.id as string;
  if (daysAgo > 0) await backdateOperator(id, daysAgo);
  return { id, token: made.body.data.token as string, actor: `operator:${id}` };
}
