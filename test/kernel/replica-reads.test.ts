/**
 * Reference reads on the request path may be answered by a D1 read replica (src/kernel/replica-reads.ts);
 * what the replica lacks is read from the primary. Locally every session is the one database, so a
 * replica that has not caught up is played by a session that finds nothing (a replica that lags behind
 * every write of the test), while the primary is the real D1.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { catalogueSnapshot, forgetCatalogueCache } from "../../src/catalogue/catalogue-cache";
import { authenticate, handleRequest } from "../../src/app";
import { forgetCachedKeys } from "../../src/http/auth";
import { Refusal } from "../../src/kernel/failures";
import { ADMIN_TOKEN } from "../admin-helpers";
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
    batch: async (statements: D1PreparedStatement[]) =>
      statements.map(() => ({ results: [], success: true, meta: {} })),
    getBookmark: () => null,
  } as unknown as D1DatabaseSession;
}

/**
 * env.DB whose nearest session (and, with `bookmarksToo`, any session started from a bookmark) is that
 * lagging replica and whose primary session is the real database.
 */
function laggingReplicaOf(db: D1Database, asked: string[], bookmarksToo = false): D1Database {
  return {
    withSession: (constraint: string) => {
      asked.push(bookmarksToo && !constraint.startsWith("first-") ? "bookmark" : constraint);
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
    expect(
      await readNearestThenPrimary(
        db,
        async (session) => `${session}`,
        () => true,
      ),
    ).toBe("first-unconstrained");
    expect(asked).toEqual(["first-unconstrained"]);
    expect(
      await readNearestThenPrimary(
        db,
        async (session) => `${session}`,
        (answer) => answer === "first-primary",
      ),
    ).toBe("first-primary");
    expect(asked).toEqual(["first-unconstrained", "first-unconstrained", "first-primary"]);
  });

  it("a key issued a moment ago works although the replica does not have it yet (the primary decides)", async () => {
    forgetCachedKeys();
    const known = await addClient(`replica-${crypto.randomUUID().slice(0, 8)}`, { USD: "10" });
    const request = (key: string) =>
      new Request("http://127.0.0.1/order/get", { headers: { authorization: `Bearer ${key}` } });
    // An isolate with no view of the primary yet reads the primary, and keeps its bookmark.
    const first: string[] = [];
    await authenticate(request(known), { ...env, DB: laggingReplicaOf(env.DB, first, true) });
    expect(first).toEqual(["first-primary"]);
    const key = await addClient(`replica-${crypto.randomUUID().slice(0, 8)}`, { USD: "10" });
    const asked: string[] = [];
    const client = await authenticate(request(key), { ...env, DB: laggingReplicaOf(env.DB, asked, true) });
    expect(client.id).toMatch(/^replica-/);
    expect(asked).toEqual(["bookmark", "first-primary"]);
    forgetCachedKeys();
  });

  it("a known key is read from a copy at least as new as the isolate's last primary bookmark: the primary is asked once per half cache time", async () => {
    forgetCachedKeys();
    const keys = await Promise.all(
      [1, 2, 3].map(() => addClient(`replica-${crypto.randomUUID().slice(0, 8)}`, { USD: "10" })),
    );
    const asked: string[] = [];
    const counting = {
      withSession: (constraint: string) => (
        asked.push(constraint.startsWith("first-") ? constraint : "bookmark"),
        env.DB.withSession(constraint as D1SessionConstraint)
      ),
    } as unknown as D1Database;
    for (const key of keys) {
      await authenticate(new Request("http://127.0.0.1/order/get", { headers: { authorization: `Bearer ${key}` } }), {
        ...env,
        DB: counting,
        API_KEY_CACHE_SECONDS: "30",
      });
    }
    expect(asked).toEqual(["first-primary", "bookmark", "bookmark"]);
    forgetCachedKeys();
  });

  it("a SKU, wallet and rate the replica lacks are read from the primary, so a create sees them at once", async () => {
    forgetCatalogueCache();
    const asked: string[] = [];
    const snapshot = await catalogueSnapshot(
      { DB: laggingReplicaOf(env.DB, asked), CATALOGUE_CACHE_SECONDS: "0" },
      "demo",
      ["DEMO-EU-FIXED"],
      "USD",
    );
    expect(snapshot.products.get("DEMO-EU-FIXED")?.currency).toBe("EUR");
    expect(snapshot.walletCurrencies.has("USD")).toBe(true);
    expect(snapshot.rates.get("USD>EUR")?.rate).toBe("0.92");
    expect(asked).toEqual(["first-unconstrained", "first-primary"]);
  });

  it("a complete answer from the nearest copy is used as it is: the primary is not asked", async () => {
    forgetCatalogueCache();
    const asked: string[] = [];
    const counting = {
      withSession: (constraint: string) => (
        asked.push(constraint),
        env.DB.withSession(constraint as D1SessionConstraint)
      ),
    } as unknown as D1Database;
    const snapshot = await catalogueSnapshot(
      { DB: counting, CATALOGUE_CACHE_SECONDS: "0" },
      "demo",
      ["DEMO-US-RANGE"],
      "USD",
    );
    expect(snapshot.products.has("DEMO-US-RANGE")).toBe(true);
    expect(asked).toEqual(["first-unconstrained"]);
  });
});

/** A replica frozen before a revocation: the key lookup still finds `clientId` live there. */
function replicaBefore(clientId: string): D1DatabaseSession {
  const statement = {
    bind: () => statement,
    first: async () => ({ client_id: clientId }),
  } as unknown as D1PreparedStatement;
  return { prepare: () => statement, getBookmark: () => null } as unknown as D1DatabaseSession;
}

/**
 * env.DB as seen from an isolate far from the primary, in the worst case D1 allows: the nearest replica has
 * not seen `revoked()` yet at all, and a session started from a bookmark sees no more than that bookmark, so
 * only a bookmark this primary gave after the revocation shows it. The primary is the real database.
 */
function laggingAfterRevocation(clientId: string, revoked: () => boolean): D1Database {
  const bookmarksAfter = new Set<string>();
  return {
    withSession: (constraint: string) => {
      if (constraint === "first-primary") {
        const primary = env.DB.withSession("first-primary");
        return new Proxy(primary, {
          get(target, property) {
            if (property === "getBookmark") {
              return () => {
                const bookmark = target.getBookmark();
                if (bookmark !== null && revoked()) bookmarksAfter.add(bookmark);
                return bookmark;
              };
            }
            const value = Reflect.get(target, property);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
      }
      if (bookmarksAfter.has(constraint)) return env.DB.withSession(constraint as D1SessionConstraint);
      return replicaBefore(clientId);
    },
  } as unknown as D1Database;
}

async function outcome(key: string, on: Env): Promise<string> {
  const request = new Request("http://127.0.0.1/order/get", { headers: { authorization: `Bearer ${key}` } });
  return authenticate(request, on).then(
    (client) => client.id,
    (error: unknown) => (error instanceof Refusal ? error.failure.code : String(error)),
  );
}

describe("a revoked key, or a disabled client's, stops working within API_KEY_CACHE_SECONDS however far a replica lags", () => {
  beforeAll(seedDemo);
  afterEach(() => {
    vi.useRealTimers();
    forgetCachedKeys();
  });

  it.each(["revoked key", "disabled client"] as const)(
    "%s: refused in another isolate from 30 s after the change on, for good",
    async (change) => {
      forgetCachedKeys();
      const clientId = `lag-${crypto.randomUUID().slice(0, 8)}`;
      const key = await addClient(clientId, { USD: "10" });
      let changed = false;
      const lagging = {
        ...env,
        DB: laggingAfterRevocation(clientId, () => changed),
        API_KEY_CACHE_SECONDS: "30",
      } as Env;
      vi.useFakeTimers({ toFake: ["Date"] });
      const start = Date.now();
      // The key in use, every 5 s, so this isolate's cache and its view of the primary are as old as they get.
      for (let at = 0; at <= 60_000; at += 5_000) {
        vi.setSystemTime(start + at);
        expect(await outcome(key, lagging)).toBe(clientId);
      }
      // The change is made by another isolate: nothing in this one is told.
      const changedAt = start + 62_000;
      vi.setSystemTime(changedAt);
      if (change === "revoked key")
        await env.DB.prepare(`UPDATE api_keys SET revoked_at = ?1 WHERE client_id = ?2`)
          .bind(changedAt, clientId)
          .run();
      else await env.DB.prepare(`UPDATE clients SET disabled_at = ?1 WHERE id = ?2`).bind(changedAt, clientId).run();
      changed = true;
      for (let after = 1_000; after <= 180_000; after += 1_000) {
        vi.setSystemTime(changedAt + after);
        const answer = await outcome(key, lagging);
        if (after > 30_000) expect(answer, `${after} ms after the change`).toBe("unauthenticated");
      }
    },
  );

  it("the isolate that revokes the key refuses it at once, though its last view of the primary is older", async () => {
    forgetCachedKeys();
    const clientId = `lag-${crypto.randomUUID().slice(0, 8)}`;
    const key = await addClient(clientId, { USD: "10" });
    let revoked = false;
    const lagging = { ...env, DB: laggingAfterRevocation(clientId, () => revoked), API_KEY_CACHE_SECONDS: "30" } as Env;
    expect(await outcome(key, lagging)).toBe(clientId);
    const { results } = await env.DB.prepare(
      `SELECT substr(key_hash, 1, 16) AS prefix FROM api_keys WHERE client_id = ?1`,
    )
      .bind(clientId)
      .all<{ prefix: string }>();
    const exec = createExecutionContext();
    const revoke = await handleRequest(
      new Request(`http://127.0.0.1/admin/clients/${clientId}/keys/key_${results[0]!.prefix}/revoke`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
      env,
      exec,
    );
    await waitOnExecutionContext(exec);
    expect(revoke.status).toBe(200);
    revoked = true;
    expect(await outcome(key, lagging)).toBe("unauthenticated");
  });
});
