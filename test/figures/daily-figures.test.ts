/**
 * The daily figures D1 still keeps with triggers (migration 0020): codes uploaded and sold per SKU, day
 * and value, and what each costs in D1 rows (docs/benchmarks.md#daily-figures). The orders' figures are
 * the books' counters, published to `books_days` (test/books); migration 0050 dropped the triggers that
 * kept them from order_index rows, and their tables.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/figures/figures-rules";
import { seedDemo } from "../helpers";
import { uid } from "../order-helpers";

/** A day of its own for each test, far from the others' (days are shared by every order of the file). */
let nextDay = 40_000;
function freshDay(): { day: number; at: number } {
  nextDay += 10;
  return { day: nextDay, at: nextDay * DAY_MS + 3_600_000 };
}

describe("the orders' figures are not kept in D1 by triggers", () => {
  it("has no trigger on order_index and none of the orders' daily tables (migration 0050)", async () => {
    const { results } = await env.DB.prepare(
      `SELECT type, name FROM sqlite_master
        WHERE (type = 'trigger' AND tbl_name = 'order_index' AND name LIKE 'daily_%')
           OR (type = 'table' AND name IN ('daily_orders', 'daily_clients', 'daily_lines'))`,
    ).all();
    expect(results).toEqual([]);
  });
});

describe("what the codes' triggers cost in D1 rows written", () => {
  it("writes one row per code uploaded and per code sold, on their days, per value", async () => {
    await seedDemo();
    const { results } = await env.DB.prepare(
      `SELECT sql FROM sqlite_master WHERE tbl_name = 'codes' AND type IN ('table', 'index') AND sql IS NOT NULL`,
    ).all<{ sql: string }>();
    for (const { sql } of results)
      await env.DB.prepare(sql.replace(/\bcodes(_\w+)?\b/g, (name) => `bare_${name}`)).run();
    const sku = "DEMO-EU-FIXED";
    const { at, day } = freshDay();
    const upload = (table: string, pin: string) =>
      env.DB.prepare(
        `INSERT INTO ${table} (sku, value, pin, link, created_at) VALUES (?1, '25', ?2, 'https://r.example/x', ?3)`,
      )
        .bind(sku, pin, at)
        .run();
    const sell = (table: string, pin: string) =>
      env.DB.prepare(
        `UPDATE ${table} SET status = 'sold', order_id = 'ord_x', sold_at = ?2 WHERE pin = ?1 AND status = 'available'`,
      )
        .bind(pin, at + DAY_MS)
        .run();
    const pins = [uid("p"), uid("p"), uid("p")];
    const costs: number[][] = [];
    for (const pin of pins) {
      const [mine, bare] = [await upload("codes", pin), await upload("bare_codes", pin)];
      costs.push([mine.meta.rows_written - bare.meta.rows_written]);
    }
    const [sold, bareSold] = [await sell("codes", pins[0]!), await sell("bare_codes", pins[0]!)];
    costs.push([sold.meta.rows_written - bareSold.meta.rows_written]);
    expect(costs).toEqual([[1], [1], [1], [1]]);
    // Sold once: a second update of a sold code counts nothing.
    await env.DB.prepare(`UPDATE codes SET sold_at = sold_at WHERE pin = ?1`).bind(pins[0]).run();
    const { results: stock } = await env.DB.prepare(
      `SELECT day, value, uploaded, sold FROM daily_stock WHERE sku = ?1 AND day IN (?2, ?2 + 1) ORDER BY day`,
    )
      .bind(sku, day)
      .all();
    expect(stock).toEqual([
      { day, value: "25", uploaded: 3, sold: 0 },
      { day: day + 1, value: "25", uploaded: 0, sold: 1 },
    ]);
    // A code written sold at once counts on its sale's day too.
    await env.DB.prepare(
      `INSERT INTO codes (sku, value, pin, link, status, order_id, sold_at, created_at)
       VALUES (?1, '25', ?2, 'https://r.example/y', 'sold', 'ord_y', ?3, ?4)`,
    )
      .bind(sku, uid("p"), at + DAY_MS, at)
      .run();
    const { results: after } = await env.DB.prepare(
      `SELECT day, uploaded, sold FROM daily_stock WHERE sku = ?1 AND day IN (?2, ?2 + 1) ORDER BY day`,
    )
      .bind(sku, day)
      .all();
    expect(after).toEqual([
      { day, uploaded: 4, sold: 0 },
      { day: day + 1, uploaded: 0, sold: 2 },
    ]);
  });
});
