/**
 * The books' retention as an operator sets it: GET and PUT /admin/books/retention (an admin's, audited,
 * at least 31 days or null), the console's Books page and its form, and the scheduled job then dropping
 * exactly the days past the value the route set (the dropping itself: test/crash/books-faults.test.ts).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { writeToBooks, shardOf } from "../../src/books/books-writer";
import { dropExpiredDays } from "../../src/books/books-retention";
import { setRetention } from "../../src/books/directory-store";
import { bookedWriteOf } from "../book-helpers";
import { DAY_MS, dayOf } from "../../src/books/shard-rules";
import { admin, auditActions, madeOperator } from "../admin-helpers";
import { call } from "../helpers";
import { fetchConsole, signedIn } from "../console/console-helpers";
import { uid } from "../order-helpers";

afterEach(async () => setRetention(env.DB, null, "test", Date.now()));

const retentionRow = () => env.DB.prepare(`SELECT days, set_by FROM books_retention`).first();

describe("PUT /admin/books/retention", () => {
  it("sets the days kept, audited, and GET answers them; null keeps everything again", async () => {
    expect((await admin("GET", "/admin/books/retention")).body.data).toEqual({
      days: null,
      keptFrom: null,
      setAt: null,
      setBy: null,
    });
    const { id: operatorId, token } = await madeOperator("Rita Retention", "admin");
    const set = await call("PUT", "/admin/books/retention", { key: token, body: { days: 45 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.message).toBe("Books retention set");
    expect(set.body.data).toMatchObject({ days: 45, setBy: `operator:${operatorId}` });
    expect(set.body.data.keptFrom).toBe((dayOf(Date.now()) - 44) * DAY_MS);
    expect((await admin("GET", "/admin/books/retention")).body.data).toEqual(set.body.data);
    const audited = await env.DB.prepare(
      `SELECT action, target, actor, details FROM audit_log WHERE target = 'books:retention' ORDER BY id DESC LIMIT 1`,
    ).first();
    expect(audited).toEqual({
      action: "books.retention.set",
      target: "books:retention",
      actor: `operator:${operatorId}`,
      details: JSON.stringify({ days: 45 }),
    });
    const kept = await admin("PUT", "/admin/books/retention", { days: null });
    expect(kept.body.data).toEqual({ days: null, keptFrom: null, setAt: null, setBy: null });
    expect(await retentionRow()).toBeNull();
    expect((await auditActions()).slice(-1)).toEqual(["books.retention.remove"]);
  });

  it.each([
    ["fewer than 31 days", { days: 30 }],
    ["a fraction", { days: 40.5 }],
    ["text", { days: "40" }],
    ["more than 36,500 days", { days: 36_501 }],
    ["no days", {}],
    ["an unknown field", { days: 40, keep: true }],
  ])("refuses %s with 400 and changes nothing", async (_name, body) => {
    await admin("PUT", "/admin/books/retention", { days: 90 });
    const before = await auditActions();
    const answer = await admin("PUT", "/admin/books/retention", body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("invalid_request_body");
    expect(await retentionRow()).toMatchObject({ days: 90 });
    expect(await auditActions()).toEqual(before);
  });

  it("is an admin's: an operator's token is refused and changes nothing", async () => {
    const { token } = await madeOperator("Otto Operator", "operator");
    const answer = await call("PUT", "/admin/books/retention", { key: token, body: { days: 40 } });
    expect(answer.status).toBe(403);
    expect(await retentionRow()).toBeNull();
    expect((await call("GET", "/admin/books/retention", { key: token })).status).toBe(200);
  });
});

describe("the value the route sets drives the scheduled drop", () => {
  it("drops the days past it and keeps the days within it", async () => {
    const clientId = uid("retained");
    const write = (daysAgo: number) =>
      bookedWriteOf(clientId, { createdAt: Date.now() - daysAgo * DAY_MS, expiresAt: Date.now() });
    const rows = [60, 41, 39, 0].map(write);
    for (const row of rows) await writeToBooks(env.BOOKS, row);
    expect((await admin("PUT", "/admin/books/retention", { days: 40 })).status).toBe(200);
    await dropExpiredDays(env, Date.now());
    const held = async (row: (typeof rows)[number]) =>
      (await shardOf(env.BOOKS, { clientId, day: dayOf(row.createdAt), part: 0 }).page({ limit: 5 })).map(
        (each) => each.id,
      );
    expect(await held(rows[0]!)).toEqual([]);
    expect(await held(rows[1]!)).toEqual([]);
    expect(await held(rows[2]!)).toEqual([rows[2]!.id]);
    expect(await held(rows[3]!)).toEqual([rows[3]!.id]);
    const days = await env.DB.prepare(`SELECT day FROM books_days WHERE client_id = ?1 ORDER BY day`)
      .bind(clientId)
      .all<{ day: number }>();
    expect(days.results.map((row) => row.day)).toEqual([dayOf(rows[2]!.createdAt), dayOf(rows[3]!.createdAt)]);
  });
});

describe("the console's Books page", () => {
  it("shows the retention, and an admin's form sets it as the route does; bad input changes nothing", async () => {
    const adminCookie = await signedIn("admin", "Ann Admin");
    const page = await fetchConsole("GET", "/console/books", { cookie: adminCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Every day of the books is kept");
    const refused = await fetchConsole("POST", "/console/books", { cookie: adminCookie, form: { days: "7" } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("A whole number of days from 31 to 36500");
    expect(await retentionRow()).toBeNull();
    const set = await fetchConsole("POST", "/console/books", { cookie: adminCookie, form: { days: "400" } });
    expect(set.status).toBe(303);
    expect(set.headers.get("location")).toBe("/console/books?notice=set");
    expect(await retentionRow()).toMatchObject({ days: 400 });
    expect((await auditActions()).slice(-1)).toEqual(["books.retention.set"]);
    expect((await fetchConsole("GET", "/console/books", { cookie: adminCookie })).text).toContain(
      "<strong>400</strong>",
    );
    const cleared = await fetchConsole("POST", "/console/books", { cookie: adminCookie, form: { days: "" } });
    expect(cleared.headers.get("location")).toBe("/console/books?notice=kept");
    expect(await retentionRow()).toBeNull();
  });

  it("a viewer sees it without the form and may not post", async () => {
    const viewer = await signedIn("viewer");
    const page = await fetchConsole("GET", "/console/books", { cookie: viewer });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Changing the retention needs the admin role.");
    expect((await fetchConsole("POST", "/console/books", { cookie: viewer, form: { days: "40" } })).status).toBe(403);
    expect(await retentionRow()).toBeNull();
  });
});
