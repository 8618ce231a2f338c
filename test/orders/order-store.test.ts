/**
 * The order object's storage module (src/orders/order-store.ts): a versioned schema. A new order gets the
 * current schema in one step; an order stored before the schema was versioned (version 0) is migrated
 * and keeps its document and timers; both roads end in the same tables.
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

describe("the order's storage schema", () => {
  it("probing an unknown order stores nothing; a new order is at the current version", async () => {
    const stub = env.ORDERS.get(env.ORDERS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const store = new OrderStore(state.storage);
      expect(store.load()).toBeNull();
      expect(store.timers()).toEqual([]);
      expect(tablesOf(state.storage)).toEqual({});
    });
    const client = await freshClient({ USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)] }, client.key);
    expect(created.status).toBe(200);
    await runInDurableObject(orderStubOf(created.body.data.id), (_instance, state) => {
      expect(new OrderStore(state.storage).schemaVersion()).toBe(ORDER_SCHEMA_VERSION);
      expect(Object.keys(tablesOf(state.storage))).toEqual(["order_record", "outbox", "schema_meta", "timers"]);
    });
  });

  it("an order stored before the schema was versioned is migrated, keeps its document and timers, and ends in the same tables", async () => {
    const client = await freshClient({ USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)] }, client.key);
    const current = await runInDurableObject(orderStubOf(created.body.data.id), (_instance, state) => tablesOf(state.storage));
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
      expect(tablesOf(state.storage)).toEqual(current);
      // Migrating again changes nothing.
      new OrderStore(state.storage).ensureSchema();
      expect(tablesOf(state.storage)).toEqual(current);
    });
  });
});
