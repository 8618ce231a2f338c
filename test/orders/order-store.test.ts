/**
 * The order object's storage module (src/orders/order-store.ts): the key-value layout (version 3). A new
 * order creates no table; an order stored in the SQL tables of an earlier version (0, before versioning,
 * or 2, the last one) is moved into the key-value layout on first read, keeping its document, timers and
 * outbox, and ends with no table of its own either.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ORDER_SCHEMA_VERSION, OrderStore } from "../../src/orders/order-store";
import { createOrder, line, orderStub, seedDemo } from "../helpers";
import { freshClient } from "../order-helpers";

type Column = { name: string; type: string; notnull: number; dflt_value: SqlStorageValue; pk: number };

function tablesOf(storage: DurableObjectStorage): Record<string, Column[]> {
  const names = storage.sql
    .exec<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name`,
    )
    .toArray()
    .map((row) => row.name);
  return Object.fromEntries(
    names.map((name) => [
      name,
      storage.sql
        .exec<Column>(`PRAGMA table_info(${name})`)
        .toArray()
        .map(({ name, type, notnull, dflt_value, pk }) => ({ name, type, notnull, dflt_value, pk })),
    ]),
  );
}

beforeAll(seedDemo);

describe("the order's storage", () => {
  it("probing an unknown order stores nothing; a new order is at the current version and has no table of its own", async () => {
    const stub = env.ORDERS.get(env.ORDERS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const store = new OrderStore(state.storage);
      expect(store.load()).toBeNull();
      expect(store.timers()).toEqual([]);
      expect(store.schemaVersion()).toBe(0);
      expect(tablesOf(state.storage)).toEqual({});
      expect([...state.storage.kv.list()]).toEqual([]);
    });
    const client = await freshClient({ USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)] }, client.key);
    expect(created.status).toBe(200);
    await runInDurableObject(orderStub(created.body.data.id), (_instance, state) => {
      const store = new OrderStore(state.storage);
      expect(store.schemaVersion()).toBe(ORDER_SCHEMA_VERSION);
      expect(store.load()).toMatchObject({ id: created.body.data.id, state: "created" });
      expect(store.timers().map((timer) => timer.kind)).toEqual(["index", "expire"]);
      expect(tablesOf(state.storage)).toEqual({});
      expect([...state.storage.kv.list()].map(([key]) => key)).toEqual(["order"]);
    });
  });

  it("an order stored before the schema was versioned moves into the key-value layout with its document and timers", async () => {
    const legacy = env.ORDERS.get(env.ORDERS.newUniqueId());
    await runInDurableObject(legacy, (_instance, state) => {
      // The storage as the unversioned order object left it.
      state.storage.sql.exec(`
        CREATE TABLE order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
        CREATE TABLE timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL);
        INSERT INTO order_record (id, doc) VALUES (1, '{"id":"ord_legacy","state":"created"}');
        INSERT INTO timers (kind, due_at) VALUES ('expire', 1234);`);
      const store = new OrderStore(state.storage);
      expect(store.load()).toEqual({ id: "ord_legacy", state: "created" });
      expect(store.schemaVersion()).toBe(ORDER_SCHEMA_VERSION);
      expect(store.timers()).toEqual([{ kind: "expire", dueAt: 1234, failures: 0, lastError: null }]);
      expect(store.events()).toEqual([]);
      expect(tablesOf(state.storage)).toEqual({});
      // A new instance reads the moved order from the key-value layout.
      const again = new OrderStore(state.storage);
      expect(again.load()).toEqual({ id: "ord_legacy", state: "created" });
      expect(again.timers()).toEqual([{ kind: "expire", dueAt: 1234, failures: 0, lastError: null }]);
    });
  });

  it("an order stored at version 2 keeps its failing timer and its outbox, sent and unsent, in order", async () => {
    const legacy = env.ORDERS.get(env.ORDERS.newUniqueId());
    await runInDurableObject(legacy, (_instance, state) => {
      const message = (id: string, type: string) =>
        JSON.stringify({
          url: "https://example.com/hook",
          clientId: "c",
          event: { id, type, createdAt: "2026-01-01T00:00:00.000Z", data: {} },
        });
      state.storage.sql.exec(`
        CREATE TABLE schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
        CREATE TABLE order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
        CREATE TABLE timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL, failures INTEGER NOT NULL DEFAULT 0, last_error TEXT);
        CREATE TABLE outbox (event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0);
        INSERT INTO schema_meta (id, version) VALUES (1, 2);
        INSERT INTO order_record (id, doc) VALUES (1, '{"id":"ord_v2","state":"successful"}');
        INSERT INTO timers (kind, due_at, failures, last_error) VALUES ('outbox', 99, 4, 'queue down');`);
      // Inserted in this order, with ids that sort the other way: the outbox keeps the order of storing.
      state.storage.sql.exec(
        `INSERT INTO outbox (event_id, message, sent) VALUES ('evt_b', ?, 1)`,
        message("evt_b", "order.confirmed"),
      );
      state.storage.sql.exec(
        `INSERT INTO outbox (event_id, message, sent) VALUES ('evt_a', ?, 0)`,
        message("evt_a", "order.successful"),
      );
      const store = new OrderStore(state.storage);
      expect(store.load()).toEqual({ id: "ord_v2", state: "successful" });
      expect(store.timers()).toEqual([{ kind: "outbox", dueAt: 99, failures: 4, lastError: "queue down" }]);
      expect(store.events()).toEqual([
        { eventId: "evt_b", type: "order.confirmed", sent: true },
        { eventId: "evt_a", type: "order.successful", sent: false },
      ]);
      expect(store.pendingEvents().map((event) => event.eventId)).toEqual(["evt_a"]);
      expect(store.outbox()[1]!.message).toBe(message("evt_a", "order.successful"));
      expect(tablesOf(state.storage)).toEqual({});
    });
  });
});
