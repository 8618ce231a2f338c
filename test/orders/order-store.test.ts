/**
 * The order object's storage module (src/orders/order-store.ts): one table, order_data (version 4). A
 * probe of an unknown order creates nothing; a new order has that table and nothing in the key-value API;
 * an order stored under an earlier layout (the SQL tables of version 0, before versioning, or 2, the last
 * one; the key-value values of version 3) is moved into order_data on first read, keeping its document,
 * timers and outbox, and the old layout is gone.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ORDER_SCHEMA_VERSION, OrderStore } from "../../src/orders/order-store";
import { createOrder, line, seedDemo } from "../helpers";
import { freshClient, orderStubOf } from "../order-helpers";

type Column = { name: string; type: string; notnull: number; dflt_value: SqlStorageValue; pk: number };

function tablesOf(storage: DurableObjectStorage): Record<string, Column[]> {
  const names = storage.sql
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name`)
    .toArray()
    .map((row) => row.name);
  return Object.fromEntries(names.map((name) => [name, storage.sql.exec<Column>(`PRAGMA table_info(${name})`).toArray().map(({ name, type, notnull, dflt_value, pk }) => ({ name, type, notnull, dflt_value, pk }))]));
}

beforeAll(seedDemo);

describe("the order's storage", () => {
  it("probing an unknown order stores nothing; a new order is at the current version, in order_data only", async () => {
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
    await runInDurableObject(orderStubOf(created.body.data.id), (_instance, state) => {
      const store = new OrderStore(state.storage);
      expect(store.schemaVersion()).toBe(ORDER_SCHEMA_VERSION);
      expect(store.load()).toMatchObject({ id: created.body.data.id, state: "created" });
      expect(store.timers().map((timer) => timer.kind)).toEqual(["expire"]);
      expect(Object.keys(tablesOf(state.storage))).toEqual(["order_data"]);
      expect(state.storage.sql.exec<{ key: string }>(`SELECT key FROM order_data`).toArray().map((row) => row.key)).toEqual(["order"]);
      expect([...state.storage.kv.list()]).toEqual([]);
    });
  });

  it("an order stored before the schema was versioned moves into order_data with its document and timers", async () => {
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
      expect(Object.keys(tablesOf(state.storage))).toEqual(["order_data"]);
      // A new instance reads the moved order from order_data.
      const again = new OrderStore(state.storage);
      expect(again.load()).toEqual({ id: "ord_legacy", state: "created" });
      expect(again.timers()).toEqual([{ kind: "expire", dueAt: 1234, failures: 0, lastError: null }]);
    });
  });

  it("an order stored at version 2 keeps its failing timer and its outbox, sent and unsent, in order", async () => {
    const legacy = env.ORDERS.get(env.ORDERS.newUniqueId());
    await runInDurableObject(legacy, (_instance, state) => {
      const message = (id: string, type: string) => JSON.stringify({ url: "https://example.com/hook", clientId: "c", event: { id, type, createdAt: "2026-01-01T00:00:00.000Z", data: {} } });
      state.storage.sql.exec(`
        CREATE TABLE schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
        CREATE TABLE order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
        CREATE TABLE timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL, failures INTEGER NOT NULL DEFAULT 0, last_error TEXT);
        CREATE TABLE outbox (event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0);
        INSERT INTO schema_meta (id, version) VALUES (1, 2);
        INSERT INTO order_record (id, doc) VALUES (1, '{"id":"ord_v2","state":"successful"}');
        INSERT INTO timers (kind, due_at, failures, last_error) VALUES ('outbox', 99, 4, 'queue down');`);
      // Inserted in this order, with ids that sort the other way: the outbox keeps the order of storing.
      state.storage.sql.exec(`INSERT INTO outbox (event_id, message, sent) VALUES ('evt_b', ?, 1)`, message("evt_b", "order.confirmed"));
      state.storage.sql.exec(`INSERT INTO outbox (event_id, message, sent) VALUES ('evt_a', ?, 0)`, message("evt_a", "order.successful"));
      const store = new OrderStore(state.storage);
      expect(store.load()).toEqual({ id: "ord_v2", state: "successful" });
      expect(store.timers()).toEqual([{ kind: "outbox", dueAt: 99, failures: 4, lastError: "queue down" }]);
      expect(store.events()).toEqual([
        { eventId: "evt_b", type: "order.confirmed", sent: true },
        { eventId: "evt_a", type: "order.successful", sent: false },
      ]);
      expect(store.pendingEvents().map((event) => event.eventId)).toEqual(["evt_a"]);
      expect(store.outbox()[1]!.message).toBe(message("evt_a", "order.successful"));
      expect(Object.keys(tablesOf(state.storage))).toEqual(["order_data"]);
    });
  });

  it("an order stored at version 3 (the key-value API) moves into order_data with its outbox, and leaves no value behind", async () => {
    const stored = env.ORDERS.get(env.ORDERS.newUniqueId());
    await runInDurableObject(stored, (_instance, state) => {
      const message = (id: string, type: string) => JSON.stringify({ url: "https://example.com/hook", clientId: "c", event: { id, type, createdAt: "2026-01-01T00:00:00.000Z", data: {} } });
      // The storage as version 3 left it: the document and each event as key-value values.
      const timers = [{ kind: "outbox", dueAt: 77, failures: 2, lastError: "queue down" }];
      state.storage.kv.put("order", JSON.stringify({ version: 3, order: { id: "ord_v3", state: "successful" }, timers, outboxCount: 2, reported: null }));
      state.storage.kv.put("outbox:0000000001", { seq: 1, eventId: "evt_1", message: message("evt_1", "order.confirmed"), sent: true });
      state.storage.kv.put("outbox:0000000002", { seq: 2, eventId: "evt_2", message: message("evt_2", "order.successful"), sent: false });
      const store = new OrderStore(state.storage);
      expect(store.load()).toEqual({ id: "ord_v3", state: "successful" });
      expect(store.schemaVersion()).toBe(ORDER_SCHEMA_VERSION);
      expect(store.timers()).toEqual(timers);
      expect(store.events()).toEqual([
        { eventId: "evt_1", type: "order.confirmed", sent: true },
        { eventId: "evt_2", type: "order.successful", sent: false },
      ]);
      expect([...state.storage.kv.list()]).toEqual([]);
      // A new instance reads it from order_data, and the next event takes the next number.
      const again = new OrderStore(state.storage);
      expect(again.pendingEvents().map((event) => event.eventId)).toEqual(["evt_2"]);
      again.markSent(["evt_2"]);
      expect(new OrderStore(state.storage).pendingEvents()).toEqual([]);
      expect(state.storage.sql.exec<{ key: string }>(`SELECT key FROM order_data ORDER BY key`).toArray().map((row) => row.key)).toEqual(["order", "outbox:0000000001", "outbox:0000000002"]);
    });
  });
});
