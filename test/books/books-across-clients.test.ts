/**
 * The books read across clients (the operator's search without a client): a page opens a bounded number of
 * shards, newest day first, merges them by (createdAt, id), continues with a cursor that neither repeats nor
 * skips, and refuses a day of more shards than it opens rather than reading it in part.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { booksAcrossClients, SHARDS_PER_PAGE, TooManyShards } from "../../src/books/books-reader";
import { DAY_MS } from "../../src/books/shard-rules";
import { admin } from "../admin-helpers";
import { bareIndexRow, expectError, expectOk, writeBooksRow } from "../order-helpers";

/** Far in the past, so that no other test's orders share these days. */
const DAY = 3_000;

async function written(clientId: string, day: number, at: number): Promise<string> {
  const row = bareIndexRow({ clientId, createdAt: day * DAY_MS + at });
  await writeBooksRow(row);
  return row.id;
}

/** Every page of a walk within these days, with a bound of `shards` a page. */
async function walk(limit: number, shards: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let after = null;
  for (let pages = 1; pages < 50; pages += 1) {
    const page = await booksAcrossClients(env, { createdTo: (DAY + 2) * DAY_MS - 1 }, after, limit, shards);
    ids.push(...page.rows.map((row) => row.id));
    if (page.next === null) return { ids, pages };
    after = page.next;
  }
  throw new Error("too many pages");
}

describe("a page across clients", () => {
  it("walks every order once, newest first, opening at most its bound of shards a page", async () => {
    // Day DAY: clients a, b (2 shards); day DAY + 1: clients a, b, c (3 shards).
    const ids = [
      await written("across-a", DAY, 1_000),
      await written("across-b", DAY, 2_000),
      await written("across-a", DAY, 3_000),
      await written("across-a", DAY + 1, 1_000),
      await written("across-b", DAY + 1, 2_000),
      await written("across-c", DAY + 1, 3_000),
    ];
    const newestFirst = [...ids].reverse();
    expect((await walk(100, 256)).ids).toEqual(newestFirst);
    expect((await walk(2, 256)).ids).toEqual(newestFirst);
    // A bound of 3 shards: day DAY + 1 alone on the first page, day DAY on the next, each whole.
    const bounded = await walk(100, 3);
    expect(bounded.ids).toEqual(newestFirst);
    expect(bounded.pages).toBe(2);
    expect((await walk(1, 3)).ids).toEqual(newestFirst);
  });

  it("refuses a day of more shards than its bound instead of reading it in part", async () => {
    await written("wide-a", DAY + 5, 1_000);
    await written("wide-b", DAY + 5, 2_000);
    await written("wide-c", DAY + 5, 3_000);
    const filter = { createdFrom: (DAY + 5) * DAY_MS, createdTo: (DAY + 6) * DAY_MS - 1 };
    await expect(booksAcrossClients(env, filter, null, 10, 2)).rejects.toBeInstanceOf(TooManyShards);
    expect((await booksAcrossClients(env, filter, null, 10, 3)).rows).toHaveLength(3);
  });

  it("is a 400 on clientId in the operator's search when a day has more shards than a page opens", async () => {
    const day = DAY + 20;
    const writes = Array.from({ length: SHARDS_PER_PAGE + 1 }, (_, at) => written(`many-${at}`, day, 1_000 + at));
    for (let start = 0; start < writes.length; start += 32) await Promise.all(writes.slice(start, start + 32));
    const range = `createdFrom=${day * DAY_MS}&createdTo=${(day + 1) * DAY_MS - 1}`;
    const refused = await admin("GET", `/admin/orders/search?${range}`);
    expectError(refused, 400, "Invalid path or query parameters", "invalid_parameters");
    expect(refused.body.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["clientId"]);
    expect(refused.body.details.issues[0].message).toContain("give clientId");
    // One client's books of that day answer as ever.
    expect(expectOk(await admin("GET", `/admin/orders/search?${range}&clientId=many-7`)).orders).toHaveLength(1);
  }, 60_000);
});
