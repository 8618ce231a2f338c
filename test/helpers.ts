import { env, exports } from "cloudflare:workers";
import { Money } from "../src/pricing/money";
import { walletName } from "../src/wallets/ledger";

export const DEMO_KEY = "sk_test_demo";
export const BASE = "http://orders.test";

/**
 * The Worker's env with a D1 binding that counts the statements prepared on it and on its sessions (reads
 * a replica may answer use one), and with `vars` in place of the configured ones.
 */
export function countingEnv(vars: Partial<Record<keyof Env, string>> = {}): { env: Env; statements: () => number } {
  let prepared = 0;
  const counting = <T extends object>(on: T): T =>
    new Proxy(on, {
      get(target, name) {
        if (name === "prepare")
          return (query: string) => ((prepared += 1), (target as unknown as D1Database).prepare(query));
        if (name === "withSession")
          return (constraint: D1SessionConstraint) =>
            counting((target as unknown as D1Database).withSession(constraint));
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const db = counting(env.DB);
  const wrapped = new Proxy(env, {
    get: (target, name) => (name === "DB" ? db : name in vars ? vars[name as keyof Env] : Reflect.get(target, name)),
  });
  return { env: wrapped, statements: () => prepared };
}

/** Splits the demo seed into statements and runs them: the same data `npm start` loads. */
export async function seedDemo(): Promise<void> {
  const statements = env.TEST_DEMO_SEED.split(/;\s*\n/)
    .map((statement) => statement.replace(/^\s*--.*$/gm, "").trim())
    .filter((statement) => statement.length > 0);
  await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
}

/** The wallet object of (client, currency): its first, or the one of a later generation (a moved wallet). */
export function wallet(clientId: string, currency: string, generation = 0, region: string | null = null) {
  return env.WALLETS.get(env.WALLETS.idFromName(walletName(clientId, currency, generation, region)));
}

export async function topUp(
  clientId: string,
  currency: string,
  amount: string,
  key = `test-top-up:${crypto.randomUUID()}`,
) {
  const result = await wallet(clientId, currency).post({ key, kind: "top_up", amount, reason: "test" });
  if (!result.ok) throw new Error(`top up failed: ${JSON.stringify(result)}`);
  return result.entry;
}

export async function balanceOf(clientId: string, currency: string): Promise<string> {
  return wallet(clientId, currency).balance();
}

export async function ledgerSumOf(clientId: string, currency: string): Promise<string> {
  const entries = await wallet(clientId, currency).entries(0, 100_000);
  return entries.reduce((acc, entry) => acc.plus(entry.amount), new Money(0)).toFixed();
}

/** Adds a client with an API key and wallets (registered in D1, funded through their wallet objects). */
export async function addClient(id: string, wallets: Record<string, string> = {}): Promise<string> {
  const key = `sk_test_${id}_${crypto.randomUUID().replaceAll("-", "")}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const hash = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare(`INSERT INTO clients (id, name, webhook_secret, created_at) VALUES (?1, ?1, ?2, ?3)`).bind(
      id,
      `whsec_${id}`,
      now,
    ),
    env.DB.prepare(`INSERT INTO api_keys (key_hash, client_id, label, created_at) VALUES (?1, ?2, 'test', ?3)`).bind(
      hash,
      id,
      now,
    ),
    ...Object.keys(wallets).map((currency) =>
      env.DB.prepare(`INSERT INTO wallets (client_id, currency, created_at) VALUES (?1, ?2, ?3)`).bind(
        id,
        currency,
        now,
      ),
    ),
  ]);
  for (const [currency, amount] of Object.entries(wallets)) if (amount !== "0") await topUp(id, currency, amount);
  return key;
}

export interface ApiCall {
  status: number;
  body: any;
  headers: Headers;
}

/** Calls the Worker's own fetch handler, as a client would. */
export async function call(
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiCall> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? DEMO_KEY : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await exports.default.fetch(new Request(`${BASE}${path}`, { method, headers, body }));
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the assertion to show
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

export function line(sku: string, quote: number, quantity = 1, productType?: string) {
  const types: Record<string, string> = {
    "DEMO-US-RANGE": "range",
    "DEMO-EU-FIXED": "fixed",
    "DEMO-GB-FIXED": "fixed",
    "DEMO-JP-RANGE": "range",
    "DEMO-US-SOLDOUT": "fixed",
    "DEMO-US-FAILING": "range",
  };
  return { sku, productType: productType ?? types[sku] ?? "range", quote, quantity };
}

export async function createOrder(body: Record<string, unknown>, key?: string | null) {
  return call("POST", "/order/create", {
    body: { wallet: "USD", reference: `ref-${crypto.randomUUID()}`, ...body },
    key,
  });
}

export async function confirmOrder(orderId: string, key?: string | null) {
  return call("PUT", "/order/confirm", { body: { orderId }, key });
}

export async function getOrder(orderId: string, key?: string | null) {
  return call("GET", `/order/get?orderId=${encodeURIComponent(orderId)}`, { key });
}

export function orderStub(orderId: string) {
  return env.ORDERS.get(env.ORDERS.idFromString(orderId.replace(/^ord_/, "")));
}
