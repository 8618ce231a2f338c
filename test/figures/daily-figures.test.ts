/**
 * The daily figures kept by migration 0020's triggers: an order's index row counts once on its day, in its
 * currency and state bucket, and moves between buckets as the row changes; ended lines count per SKU,
 * supplier and outcome; codes uploaded and sold count per SKU and value; and what each write costs in D1
 * rows (docs/benchmarks.md#daily-figures).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/figures/figures-rules";
import { confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { ended, expectOk, freshClient, indexNow, uid } from "../order-helpers";

interface Line {
  sku: string;
  supplier: string;
  quantity: number;
  amount: string;
  outcome: "pending" | "delivered" | "failed";
}

interface Row {
  clientId: string;
  reference: string;
  state: string;
  wallet: string;
  total: string;
  charged: string;
  refunded: string;
  createdAt: number;
  stage: number;
  lines: Line[] | null;
}

/** Each order's last version written, so that each write is newer than the last unless told otherwise. */
const versions = new Map<string, number>();

/**
 * Writes an index row as the order's writer does (src/order-index/order-index-store.ts: an upsert that
 * only a newer version passes), into `table`; answers the D1 rows written.
 */
async function write(row: Row, table = "order_index", version?: number): Promise<number> {
  const key = `${table} ${row.reference}`;
  const next = version ?? (versions.get(key) ?? 0) + 1;
  versions.set(key, Math.max(next, versions.get(key) ?? 0));
  const result = await env.DB.prepare(
    `INSERT INTO ${table} (client_id, reference, id, state, wallet, total, charged, refunded, skus, lines, created_at,
       modified_at, expires_at, stage, version)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
     ON CONFLICT (client_id, created_at, id) DO UPDATE SET state = excluded.state, total = excluded.total,
       charged = excluded.charged, refunded = excluded.refunded, skus = excluded.skus, lines = excluded.lines,
       modified_at = excluded.modified_at, expires_at = excluded.expires_at, stage = excluded.stage,
       version = excluded.version
     WHERE (excluded.version, excluded.modified_at) > (${table}.version, ${table}.modified_at)`,
  )
    .bind(
      row.clientId,
      row.reference,
      `ord_${row.reference}`,
      row.state,
      row.wallet,
      row.total,
      row.charged,
      row.refunded,
      `,${[...new Set((row.lines ?? []).map((line) => line.sku))].join(",")},`,
      JSON.stringify(row.lines ?? []),
      row.createdAt,
      row.createdAt + next,
      row.createdAt + 600_000,
      row.stage,
      next,
    )
    .run();
  return result.meta.rows_written ?? 0;
}

async function ordersOf(day: number, currency: string) {
  const { results } = await env.DB.prepare(
    `SELECT state, orders, total, charged, refunded FROM daily_orders WHERE day = ?1 AND currency = ?2 ORDER BY state`,
  )
    .bind(day, currency)
    .all();
  return results;
}

async function clientOf(clientId: string) {
  const { results } = await env.DB.prepare(
    `SELECT day, currency, orders, charged, refunded FROM daily_clients WHERE client_id = ?1 ORDER BY day, currency`,
  )
    .bind(clientId)
    .all();
  return results;
}

async function linesOf(sku: string) {
  const { results } = await env.DB.prepare(
    `SELECT day, supplier, currency, outcome, lines, quantity, amount FROM daily_lines WHERE sku = ?1 ORDER BY day, outcome`,
  )
    .bind(sku)
    .all();
  return results;
}

/** A day of its own for each test, far from the others' (days are shared by every order of the file). */
let nextDay = 40_000;
function freshDay(): { day: number; at: number } {
  nextDay += 10;
  return { day: nextDay, at: nextDay * DAY_MS + 3_600_000 };
}

describe("an order's row moves its day's figures", () => {
  it("counts a new row once, then moves it from open to its end state with its refund", async () => {
    const { day, at } = freshDay();
    const clientId = uid("c");
    const sku = uid("SKU");
    const base = { clientId, reference: uid("r"), wallet: "USD", total: "12.5", createdAt: at };
    const pending: Line[] = [
      { sku, supplier: "inventory", quantity: 2, amount: "10", outcome: "pending" },
      { sku: `${sku}-B`, supplier: "upstream", quantity: 1, amount: "2.5", outcome: "pending" },
    ];
    await write({ ...base, state: "created", charged: "0", refunded: "0", stage: 1, lines: pending });
    expect(await ordersOf(day, "USD")).toEqual([{ state: "open", orders: 1, total: 12500, charged: 0, refunded: 0 }]);
    expect(await clientOf(clientId)).toEqual([{ day, currency: "USD", orders: 1, charged: 0, refunded: 0 }]);
    expect(await linesOf(sku)).toEqual([]);

    await write({ ...base, state: "confirmed", charged: "12.5", refunded: "0", stage: 1, lines: pending });
    await write({ ...base, state: "processing", charged: "12.5", refunded: "0", stage: 1, lines: pending });
    expect(await ordersOf(day, "USD")).toEqual([
      { state: "open", orders: 1, total: 12500, charged: 12500, refunded: 0 },
    ]);
    expect(await clientOf(clientId)).toEqual([{ day, currency: "USD", orders: 1, charged: 12500, refunded: 0 }]);

    await write({
      ...base,
      state: "partial",
      charged: "12.5",
      refunded: "2.5",
      stage: 2,
      lines: [
        { ...pending[0]!, outcome: "delivered" },
        { ...pending[1]!, outcome: "failed" },
      ],
    });
    expect(await ordersOf(day, "USD")).toEqual([
      { state: "open", orders: 0, total: 0, charged: 0, refunded: 0 },
      { state: "partial", orders: 1, total: 12500, charged: 12500, refunded: 2500 },
    ]);
    expect(await clientOf(clientId)).toEqual([{ day, currency: "USD", orders: 1, charged: 12500, refunded: 2500 }]);
    expect(await linesOf(sku)).toEqual([
      { day, supplier: "inventory", currency: "USD", outcome: "delivered", lines: 1, quantity: 2, amount: 10000 },
    ]);
    expect(await linesOf(`${sku}-B`)).toEqual([
      { day, supplier: "upstream", currency: "USD", outcome: "failed", lines: 1, quantity: 1, amount: 2500 },
    ]);
  });

  it("sums several orders of a day exactly, in thousandths, per currency", async () => {
    const { day, at } = freshDay();
    const clientId = uid("c");
    const amounts = ["0.1", "0.2", "0.3", "1234567.891", "7"];
    for (const amount of amounts)
      await write({
        clientId,
        reference: uid("r"),
        state: "successful",
        wallet: "KWD",
        total: amount,
        charged: amount,
        refunded: "0",
        createdAt: at,
        stage: 2,
        lines: null,
      });
    await write({
      clientId,
      reference: uid("r"),
      state: "rejected",
      wallet: "JPY",
      total: "500",
      charged: "0",
      refunded: "0",
      createdAt: at + 1000,
      stage: 2,
      lines: null,
    });
    expect(await ordersOf(day, "KWD")).toEqual([
      { state: "successful", orders: 5, total: 1234575491, charged: 1234575491, refunded: 0 },
    ]);
    expect(await ordersOf(day, "JPY")).toEqual([
      { state: "rejected", orders: 1, total: 500000, charged: 0, refunded: 0 },
    ]);
  });

  it("changes nothing when a write is older than the row (the upsert passes it over)", async () => {
    const { day, at } = freshDay();
    const row: Row = {
      clientId: uid("c"),
      reference: uid("r"),
      state: "successful",
      wallet: "EUR",
      total: "3",
      charged: "3",
      refunded: "0",
      createdAt: at,
      stage: 2,
      lines: null,
    };
    await write(row, "order_index", 2);
    expect(await write({ ...row, state: "failed", refunded: "3" }, "order_index", 1)).toBe(0);
    expect(await ordersOf(day, "EUR")).toEqual([
      { state: "successful", orders: 1, total: 3000, charged: 3000, refunded: 0 },
    ]);
  });

  it("takes a removed row out of its day", async () => {
    const { day, at } = freshDay();
    const clientId = uid("c");
    const sku = uid("SKU");
    const reference = uid("r");
    await write({
      clientId,
      reference,
      state: "failed",
      wallet: "GBP",
      total: "4",
      charged: "4",
      refunded: "4",
      createdAt: at,
      stage: 2,
      lines: [{ sku, supplier: "upstream", quantity: 1, amount: "4", outcome: "failed" }],
    });
    await env.DB.prepare(`DELETE FROM order_index WHERE client_id = ?1 AND reference = ?2`)
      .bind(clientId, reference)
      .run();
    expect(await ordersOf(day, "GBP")).toEqual([{ state: "failed", orders: 0, total: 0, charged: 0, refunded: 0 }]);
    expect(await linesOf(sku)).toEqual([
      { day, supplier: "upstream", currency: "GBP", outcome: "failed", lines: 0, quantity: 0, amount: 0 },
    ]);
  });
});

describe("what the triggers cost in D1 rows written", () => {
  /** order_index as it is, indexes and all, without the triggers: what the writes cost before 0020. */
  async function bareTable(): Promise<string> {
    const { results } = await env.DB.prepare(
      `SELECT type, sql FROM sqlite_master WHERE tbl_name = 'order_index' AND type IN ('table', 'index') AND sql IS NOT NULL`,
    ).all<{ type: string; sql: string }>();
    for (const { sql } of results)
      await env.DB.prepare(
        sql.replace(/\border_index(_\w+)?\b/g, (name) => name.replace("order_index", "bare_index")),
      ).run();
    return "bare_index";
  }

  it("writes 3 rows on an order's first write, 2 when it is charged, 2 when it ends and 1 per ended SKU", async () => {
    const bare = await bareTable();
    const { at } = freshDay();
    const clientId = uid("c");
    const sku = uid("SKU");
    const base = { clientId, reference: uid("r"), wallet: "USD", total: "10", createdAt: at };
    const pending: Line[] = [
      { sku, supplier: "inventory", quantity: 1, amount: "4", outcome: "pending" },
      { sku: `${sku}-B`, supplier: "upstream", quantity: 1, amount: "6", outcome: "pending" },
    ];
    const life: Row[] = [
      { ...base, state: "created", charged: "0", refunded: "0", stage: 1, lines: pending },
      { ...base, state: "confirmed", charged: "10", refunded: "0", stage: 1, lines: pending },
      { ...base, state: "processing", charged: "10", refunded: "0", stage: 1, lines: pending },
      {
        ...base,
        state: "successful",
        charged: "10",
        refunded: "0",
        stage: 2,
        lines: pending.map((line) => ({ ...line, outcome: "delivered" as const })),
      },
    ];
    const withTriggers: number[] = [];
    const without: number[] = [];
    for (const row of life) {
      withTriggers.push(await write(row));
      without.push(await write(row, bare));
    }
    const added = withTriggers.map((rows, index) => rows - without[index]!);
    // created: its day's open bucket, its client's day and that day's index entry; confirmed: both amounts;
    // processing: nothing; successful: out of open, into successful, and one row per ended SKU.
    expect(added).toEqual([3, 2, 0, 4]);
    console.log(
      `D1 rows written per write, order index alone: ${without.join(", ")}; with 0020's triggers: ${withTriggers.join(", ")}`,
    );
  });

  it("adds 3 rows to an order written once by itself (bench's flow), and 1 for its client's first that day", async () => {
    await seedDemo();
    const { key } = await freshClient({ USD: "100" });
    const written: number[] = [];
    for (const quote of [5, 6]) {
      const created = expectOk(
        await createOrder(
          { productList: [line("DEMO-US-RANGE", quote, 1)], wallet: "USD", reference: uid("ref") },
          key,
        ),
      );
      expectOk(await confirmOrder(created.id, key));
      expect(await ended(created.id)).toBe("successful");
      written.push(await indexNow(created.id));
    }
    // The index's own 2 (its row and its time index entry), then its day's bucket, its client's day and its
    // SKU's line; the client's first order of the day also writes that day's index entry.
    expect(written).toEqual([2 + 4, 2 + 3]);
  });

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
