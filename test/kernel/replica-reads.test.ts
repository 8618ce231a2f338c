/**
 * Reference reads on the request path may be answered by a D1 read replica (src/kernel/replica-reads.ts);
 * what the replica lacks is read from the primary. Locally every session is the one database, so a
 * replica that has not caught up is played by a session that finds nothing (a replica that lags behind
 * every write of the test), while the primary is the real D1.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogueSnapshot, forgetCatalogueCache } from "../../src/catalogue/catalogue-cache";
import { authenticate } from "../../src/app";
import { readNearestThenPrimary } from "../../src/kernel/replica-reads";
import { addClient, seedDemo } from "../helpers";

/** A replica that has none of the rows the test wrote: every statement finds nothing. */
function emptyReplica(): D1DatabaseSession {
  const statement = {
    bind: () => statement,
    first: async () => null,
    all: async () => ({ results: [], success: true, meta: {} }),
    run: async () => ({ results: [], success: true, meta: {} }),
    raw: async () => [],
  } as unknown as D1PreparedStatement;
  return {
    prepare: () => statement,
    batch: async (statements: D1PreparedStatement[]) => statements.map(() => ({ results: [], success: true, meta: {} })),
    getBookmark: () => null,
  } as unknown as D1DatabaseSession;
}

/** env.DB whose nearest session is that lagging replica and whose primary session is the real database. */
function laggingReplicaOf(db: D1Database, asked: string[]): D1Database {
  return {
    withSession: (constraint: string) => {
      asked.push(constraint);
      return constraint === "first-primary" ? db.withSession("first-primary") : emptyReplica();
    },
  } as unknown as D1Database;
}

describe("reads a replica may answer", () => {
  beforeAll(seedDemo);

  it("asks the nearest copy first and the primary only when the answer is incomplete", async () => {
    const asked: string[] = [];
    const db = {
      withSession: (constraint: string) => {
        asked.push(constraint);
        return constraint as unknown as D1DatabaseSession;
      },
    };
    expect(await readNearestThenPrimary(db, async (session) => `${session}`, () => true)).toBe("first-unconstrained");
    expect(asked).toEqual(["first-unconstrained"]);
    expect(await readNearestThenPrimary(db, async (session) => `${session}`, (answer) => answer === "first-primary")).toBe("first-primary");
    expect(asked).toEqual(["first-unconstrained", "first-unconstrained", "first-primary"]);
  });

  it("a key issued a moment ago works although the replica does not have it yet (the primary decides)", async () => {
    const key = await addClient(`replica-${crypto.randomUUID().slice(0, 8)}`, { USD: "10" });
    const asked: string[] = [];
    const request = new Request("http://127.0.0.1/order/get", { headers: { authorization: `Bearer ${key}` } });
    const client = await authenticate(request, { ...env, DB: laggingReplicaOf(env.DB, asked) });
    expect(client.id).toMatch(/^replica-/);
    expect(asked).toEqual(["first-unconstrained", "first-primary"]);
  });

  it("a SKU, wallet and rate the replica lacks are read from the primary, so a create sees them at once", async () => {
    forgetCatalogueCache();
    const asked: string[] = [];
    const snapshot = await catalogueSnapshot({ DB: laggingReplicaOf(env.DB, asked), CATALOGUE_CACHE_SECONDS: "0" }, "demo", ["DEMO-EU-FIXED"], "USD");
    expect(snapshot.products.get("DEMO-EU-FIXED")?.currency).toBe("EUR");
    expect(snapshot.walletCurrencies.has("USD")).toBe(true);
    expect(snapshot.rates.get("USD>EUR")?.rate).toBe("0.92");
    expect(asked).toEqual(["first-unconstrained", "first-primary"]);
  });

  it("a complete answer from the nearest copy is used as it is: the primary is not asked", async () => {
    forgetCatalogueCache();
    const asked: string[] = [];
    const counting = { withSession: (constraint: string) => (asked.push(constraint), env.DB.withSession(constraint as D1SessionConstraint)) } as unknown as D1Database;
    const snapshot = await catalogueSnapshot({ DB: counting, CATALOGUE_CACHE_SECONDS: "0" }, "demo", ["DEMO-US-RANGE"], "USD");
    expect(snapshot.products.has("DEMO-US-RANGE")).toBe(true);
    expect(asked).toEqual(["first-unconstrained"]);
  });
});
