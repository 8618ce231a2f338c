// Local D1 for the benchmark: migrations of schema/migrations, the demo seed, then bench-only data
// (extra clients with keys and wallets, extra sandbox SKUs) written with SQL, and money put in the wallets
// through the operator API (POST /admin/wallets/:clientId/:currency/top-ups), as an operator would.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { unstable_splitSqlQuery } from "wrangler";
import { ROOT } from "./workers.mjs";

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

async function runSql(db, sql) {
  const statements = unstable_splitSqlQuery(sql).filter((s) => s.trim().length > 0);
  if (statements.length > 0) await db.batch(statements.map((s) => db.prepare(s)));
}

/** Returns the API keys of the bench clients (the demo key first). */
export async function seedProject(instance, target, { adminToken, clients, skus, topUp, root = ROOT }) {
  const db = await instance.mf.getD1Database("DB");
  // `root`: the tree whose schema the Worker was built from (another revision, for bench:compare).
  const migrations = path.join(root, "schema", "migrations");
  for (const file of readdirSync(migrations)
    .filter((f) => f.endsWith(".sql"))
    .sort())
    await runSql(db, readFileSync(path.join(migrations, file), "utf8"));
  await runSql(db, readFileSync(path.join(root, "schema", "seed", "demo.sql"), "utf8"));

  // Extra sandbox SKUs shaped like DEMO-US-RANGE (copied column by column, whatever the columns are).
  const columns = (await db.prepare(`PRAGMA table_info(products)`).all()).results.map((c) => c.name);
  const extraSkus = Array.from({ length: skus }, (_, i) => `BENCH-US-RANGE-${i + 1}`);
  if (extraSkus.length > 0)
    await db.batch(
      extraSkus.map((sku) =>
        db
          .prepare(
            `INSERT OR IGNORE INTO products (${columns.join(", ")}) SELECT ${columns.map((c) => (c === "sku" ? "?1" : c)).join(", ")} FROM products WHERE sku = 'DEMO-US-RANGE'`,
          )
          .bind(sku),
      ),
    );

  const keys = ["sk_test_demo"];
  const clientIds = ["demo"];
  const now = Date.now();
  const statements = [];
  for (let i = 1; i < clients; i += 1) {
    const id = `bench-${String(i).padStart(2, "0")}`;
    const key = `sk_test_${id}_benchmark`;
    keys.push(key);
    clientIds.push(id);
    statements.push(
      db
        .prepare(`INSERT OR IGNORE INTO clients (id, name, webhook_secret, created_at) VALUES (?1, ?1, ?2, ?3)`)
        .bind(id, `whsec_${id}`, now),
      db
        .prepare(`INSERT OR IGNORE INTO api_keys (key_hash, client_id, label, created_at) VALUES (?1, ?2, 'bench', ?3)`)
        .bind(sha256(key), id, now),
      db
        .prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at) VALUES (?1, 'USD', ?2)`)
        .bind(id, now),
    );
  }
  if (statements.length > 0) await db.batch(statements);

  for (const clientId of clientIds) {
    const response = await target.request("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      headers: { authorization: `Bearer ${adminToken}` },
      body: { amount: topUp, idempotencyKey: `bench-${clientId}-USD`, reason: "benchmark funds" },
      parse: true,
    });
    if (response.status !== 200)
      throw new Error(`top-up of ${clientId}: ${response.status} ${JSON.stringify(response.json)}`);
  }
  return { keys, clientIds, extraSkus };
}

/** The upstream supplier and webhook receiver of the metrics pass, played in-process (see `start`). */
export const UPSTREAM_URL = "http://127.0.0.1:9/upstream";
export const WEBHOOK_URL = "http://127.0.0.1:9/hooks/bench";

export async function answerOutbound(request) {
  const url = new URL(request.url);
  if (url.pathname === "/upstream/v1/codes") {
    const { quantity, orderId } = await request.json();
    const codes = Array.from({ length: quantity }, (_, i) => ({
      pin: `UP-${orderId.slice(-12)}-${i}`,
      link: `https://redeem.invalid/UP-${orderId.slice(-12)}-${i}`,
    }));
    return Response.json({ codes });
  }
  if (url.pathname.startsWith("/hooks/")) return new Response(null, { status: 204 });
  return null;
}

/**
 * What the cost variants order, one line each: a SKU of every supplier kind. Adds an upstream SKU and
 * inventory codes through the operator API, as an operator would.
 */
export async function seedSupplierKinds(target, { adminToken, codes }) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const upstream = await target.request("PUT", "/admin/products/BENCH-US-UPSTREAM", {
    headers: admin,
    body: {
      productType: "range",
      name: "Bench upstream top-up",
      currency: "USD",
      country: "US",
      region: "North America",
      minQuote: "1",
      maxQuote: "500",
      supplier: "upstream",
    },
    parse: true,
  });
  if (upstream.status !== 200) throw new Error(`upstream SKU: ${upstream.status} ${JSON.stringify(upstream.json)}`);
  const list = Array.from({ length: codes }, (_, i) => ({
    value: "10",
    pin: `BENCH-EU10-${String(i).padStart(5, "0")}`,
    link: `https://redeem.invalid/BENCH-EU10-${i}`,
  }));
  const uploaded = await target.request("POST", "/admin/products/DEMO-EU-FIXED/codes", {
    headers: admin,
    body: { codes: list },
    parse: true,
  });
  if (uploaded.status !== 200) throw new Error(`inventory codes: ${uploaded.status} ${JSON.stringify(uploaded.json)}`);
  return {
    sandbox: [{ sku: "DEMO-US-RANGE", productType: "range", quote: 10, quantity: 1 }],
    inventory: [{ sku: "DEMO-EU-FIXED", productType: "fixed", quote: 10, quantity: 1 }],
    upstream: [{ sku: "BENCH-US-UPSTREAM", productType: "range", quote: 10, quantity: 1 }],
  };
}
