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
export async function seedProject(instance, target, { adminToken, clients, skus, topUp }) {
  const db = await instance.mf.getD1Database("DB");
  const migrations = path.join(ROOT, "schema", "migrations");
  for (const file of readdirSync(migrations).filter((f) => f.endsWith(".sql")).sort()) await runSql(db, readFileSync(path.join(migrations, file), "utf8"));
  await runSql(db, readFileSync(path.join(ROOT, "schema", "seed", "demo.sql"), "utf8"));

  // Extra sandbox SKUs shaped like DEMO-US-RANGE (copied column by column, whatever the columns are).
  const columns = (await db.prepare(`PRAGMA table_info(products)`).all()).results.map((c) => c.name);
  const extraSkus = Array.from({ length: skus }, (_, i) => `BENCH-US-RANGE-${i + 1}`);
  if (extraSkus.length > 0) await db.batch(
    extraSkus.map((sku) =>
      db
        .prepare(`INSERT OR IGNORE INTO products (${columns.join(", ")}) SELECT ${columns.map((c) => (c === "sku" ? "?1" : c)).join(", ")} FROM products WHERE sku = 'DEMO-US-RANGE'`)
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
      db.prepare(`INSERT OR IGNORE INTO clients (id, name, webhook_secret, created_at) VALUES (?1, ?1, ?2, ?3)`).bind(id, `whsec_${id}`, now),
      db.prepare(`INSERT OR IGNORE INTO api_keys (key_hash, client_id, label, created_at) VALUES (?1, ?2, 'bench', ?3)`).bind(sha256(key), id, now),
      db.prepare(`INSERT OR IGNORE INTO wallets (client_id, currency, created_at) VALUES (?1, 'USD', ?2)`).bind(id, now),
    );
  }
  if (statements.length > 0) await db.batch(statements);

  for (const clientId of clientIds) {
    const response = await target.request("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      headers: { authorization: `Bearer ${adminToken}` },
      body: { amount: topUp, idempotencyKey: `bench-${clientId}-USD`, reason: "benchmark funds" },
      parse: true,
    });
    if (response.status !== 200) throw new Error(`top-up of ${clientId}: ${response.status} ${JSON.stringify(response.json)}`);
  }
  return { keys, clientIds, extraSkus };
}
