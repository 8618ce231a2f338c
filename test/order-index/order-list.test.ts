/**
 * GET /orders: the calling client's orders in any state, from the order index, newest first, filtered and
 * paged stably while orders are being created; another client's orders are never in it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, line, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import {
  drainTimers,
  expectError,
  expireByAlarm,
  freshClient,
  indexNow,
  MESSAGES,
  storedOrder,
} from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

async function created(key: string, reference: string, quote = 10): Promise<string> {
  const answer = await call("POST", "/order/create", {
    key,
    body: { productList: [line("DEMO-US-RANGE", quote)], wallet: "USD", reference },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  await pause();
  return answer.body.data.id as string;
}

async function confirmed(key: string, reference: string, productList = [line("DEMO-US-RANGE", 10)]): Promise<string> {
  const answer = await call("POST", "/order/create", { key, body: { productList, wallet: "USD", reference } });
  const orderId = answer.body.data.id as string;
  expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
  await drainTimers(orderId);
  await pause();
  return orderId;
}

const list = (key: string, query = "") => call("GET", `/orders${query}`, { key });

describe("GET /orders", () => {
  it("lists every order of the client in any state, newest first, each as its summary", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const open = await created(key, "po-open");
    const expired = await created(key, "po-expired");
    await expireByAlarm(expired);
    const successful = await confirmed(key, "po-ok");
    const failed = await confirmed(key, "po-failed", [line("DEMO-US-FAILING", 5)]);
    await indexNow(open, expired, successful, failed);
    const answer = await list(key);
    await expectConforms("GET", "/orders", answer);
    expect(answer.body.message).toBe("Orders");
    expect(answer.body.data.next).toBeNull();
    const orders = answer.body.data.orders;
    expect(orders.map((order: { id: string; state: string }) => [order.id, order.state])).toEqual([
      [failed, "failed"],
      [successful, "successful"],
      [expired, "rejected"],
      [open, "created"],
    ]);
    const stored = await storedOrder(successful);
    expect(orders[1]).toEqual({
      id: successful,
      reference: "po-ok",
      state: "successful",
      wallet: "USD",
      total: 10,
      skus: ["DEMO-US-RANGE"],
      createdAt: stored.createdAt,
      modifiedAt: stored.modifiedAt,
      expiresAt: stored.expiresAt,
    });
  });

  it("filters by state, creation time (inclusive) and reference prefix", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const a = await confirmed(key, "2026-11/a");
    const b = await confirmed(key, "2026-11/b", [line("DEMO-US-FAILING", 5)]);
    const c = await confirmed(key, "2026-12/c", [line("DEMO-US-FAILING", 6)]);
    const d = await created(key, "2026-12/d");
    await indexNow(a, b, c, d);
    const ids = async (query: string) => {
      const answer = await list(key, query);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.data.orders.map((order: { id: string }) => order.id);
    };
    expect(await ids("?state=failed")).toEqual([c, b]);
    expect(await ids("?state=created")).toEqual([d]);
    expect(await ids("?reference=2026-11/")).toEqual([b, a]);
    expect(await ids(`?reference=${encodeURIComponent("2026-12/")}&state=failed`)).toEqual([c]);
    const [bAt, cAt] = [(await storedOrder(b)).createdAt, (await storedOrder(c)).createdAt];
    expect(await ids(`?createdFrom=${bAt}&createdTo=${cAt}`)).toEqual([c, b]);
    expect(await ids(`?createdFrom=${bAt + 1}&createdTo=${cAt - 1}`)).toEqual([]);
    expect(await ids(`?createdTo=${bAt}&state=failed`)).toEqual([b]);
  });

  it("pages stably while orders are being created: a walk neither repeats nor skips an order that was there when it began", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const before: string[] = [];
    for (let index = 0; index < 5; index += 1) before.push(await created(key, `walk-${index}`));
    await indexNow(...before);
    const walked: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages === 0 || after !== null; pages += 1) {
      expect(pages).toBeLessThan(10);
      const page = await list(key, `?limit=2${after === null ? "" : `&after=${encodeURIComponent(after)}`}`);
      expect(page.body.data.orders.length).toBeLessThanOrEqual(2);
      walked.push(...page.body.data.orders.map((order: { id: string }) => order.id));
      after = page.body.data.next;
      // Orders created (and indexed) in the middle of the walk come before its first page.
      const newer = await created(key, `during-${pages}`);
      await indexNow(newer);
    }
    expect(walked).toEqual([...before].reverse());
    const fresh = (await list(key)).body.data.orders.map((order: { reference: string }) => order.reference);
    expect(fresh.slice(0, 3)).toEqual(["during-2", "during-1", "during-0"]);
  });

  it("never shows another client's orders, whatever the filter or cursor", async () => {
    const mine = await freshClient({ USD: "100" });
    const theirs = await freshClient({ USD: "100" });
    const own = await created(mine.key, "shared-ref");
    const other = await created(theirs.key, "shared-ref");
    await indexNow(own, other);
    for (const query of ["", "?reference=shared", "?state=created", "?limit=100"]) {
      const answer = await list(mine.key, query);
      expect(answer.body.data.orders.map((order: { id: string }) => order.id)).toEqual([own]);
    }
    // A cursor at their newest order still lists only the caller's.
    const stored = await storedOrder(other);
    const cursor = `${stored.createdAt + 1}.${other}`;
    const after = await list(mine.key, `?after=${encodeURIComponent(cursor)}`);
    expect(after.body.data.orders.map((order: { id: string }) => order.id)).toEqual([own]);
    expect((await list(theirs.key)).body.data.orders.map((order: { id: string }) => order.id)).toEqual([other]);
  });

  it.each([
    ["limit 0", "?limit=0"],
    ["limit 101", "?limit=101"],
    ["an unknown state", "?state=pending"],
    ["a cursor it never gave", "?after=yesterday"],
    ["createdFrom not a time", "?createdFrom=monday"],
    ["an empty reference", "?reference="],
    ["a limit twice", "?limit=1&limit=2"],
  ])("%s → 400 invalid_parameters, nothing listed", async (_name, query) => {
    const { key } = await freshClient({ USD: "100" });
    const answer = await list(key, query);
    expectError(answer, 400, "Invalid path or query parameters", "invalid_parameters");
    await expectConforms("GET", "/orders", answer);
  });

  it("needs the client's key: 403 without one", async () => {
    expectError(await call("GET", "/orders", { key: null }), 403, MESSAGES.auth, "unauthenticated");
  });
});
