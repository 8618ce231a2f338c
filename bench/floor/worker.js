// The floor the order service is measured against (`npm run bench`): per request it parses JSON, makes one
// Durable Object RPC that runs one SQLite statement, and answers JSON. The endpoints have the service's
// paths and shapes (create → confirm → get), one object per order, named by reference like the service's.
// No auth, no validation, no money: whatever the service spends beyond this is the price of its features.
import { DurableObject } from "cloudflare:workers";

export class FloorOrder extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Schema setup when the object starts (the service's order object does the same on first create).
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS o (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL, doc TEXT NOT NULL)`,
    );
  }

  /** One statement: insert the order, or return the existing one (idempotent on reference). */
  create(doc) {
    return this.sql
      .exec(
        `INSERT INTO o (id, state, doc) VALUES (1, 'created', ?) ON CONFLICT (id) DO UPDATE SET id = id RETURNING state, doc`,
        JSON.stringify(doc),
      )
      .one();
  }

  /** One statement: created → confirmed, or nothing when it was not `created`. */
  confirm() {
    return (
      this.sql
        .exec(`UPDATE o SET state = 'confirmed' WHERE id = 1 AND state = 'created' RETURNING state`)
        .toArray()[0] ?? null
    );
  }

  /** One statement: the stored order. */
  get() {
    return this.sql.exec(`SELECT state, doc FROM o WHERE id = 1`).toArray()[0] ?? null;
  }
}

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/order/create") {
      const body = await request.json();
      const id = env.ORDERS.idFromName(String(body.reference));
      const row = await env.ORDERS.get(id).create(body);
      return json({
        message: "Order created successfully",
        data: { id: `ord_${id}`, state: row.state, ...JSON.parse(row.doc) },
      });
    }
    if (request.method === "PUT" && url.pathname === "/order/confirm") {
      const { orderId } = await request.json();
      const row = await env.ORDERS.get(env.ORDERS.idFromString(String(orderId).slice(4))).confirm();
      return row === null
        ? json({ message: "Order already confirmed", code: "order_already_confirmed" }, 409)
        : json({ message: "Order confirmed", data: { id: orderId, state: row.state } });
    }
    if (request.method === "GET" && url.pathname === "/order/get") {
      const orderId = url.searchParams.get("orderId") ?? "";
      const row = await env.ORDERS.get(env.ORDERS.idFromString(orderId.slice(4))).get();
      return row === null
        ? json({ message: "Not Found", code: "order_not_found" }, 404)
        : json({ message: "Order retrieved", data: { uid: orderId, state: row.state, ...JSON.parse(row.doc) } });
    }
    return json({ message: "Not Found", code: "route_not_found" }, 404);
  },
};
