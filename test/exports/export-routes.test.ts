/**
 * The exports across clients as an operator starts and follows them: POST /admin/orders/exports (any role,
 * naming who asked; bad filters 400 and nothing stored), the list and one job with their progress, the
 * file once done (409 before, 404 for an unknown id), and the console's Exports page, which starts a job
 * with the Orders page's filters and links each finished job's file.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runStep } from "../../src/exports/export-step";
import { ADMIN_TOKEN, admin, madeOperator } from "../admin-helpers";
import { call } from "../helpers";
import { fetchConsole, signedIn } from "../console/console-helpers";
import { uid } from "../order-helpers";
import { book, bookedOrder, daysOfOwn, expectedCsv, onDays, stepEnv } from "./export-helpers";

const jobCount = async () =>
  (await env.DB.prepare(`SELECT COUNT(*) AS n FROM order_exports`).first<{ n: number }>())!.n;

/** Holds a job as a step under way holds it, so that the queue's consumer leaves it be meanwhile. */
async function hold(id: number): Promise<void> {
  await env.DB.prepare(`UPDATE order_exports SET run = 'held', lease_until = ?2 WHERE id = ?1`)
    .bind(id, Date.now() + 600_000)
    .run();
}

async function release(id: number): Promise<void> {
  await env.DB.prepare(`UPDATE order_exports SET run = NULL, lease_until = 0 WHERE id = ?1`).bind(id).run();
}

describe("POST /admin/orders/exports", () => {
  it("starts a job any role may ask for, naming who asked; it is followed and its file downloaded once done", async () => {
    const days = daysOfOwn(2);
    const clientId = uid("route");
    const rows = await book(days.map((day) => bookedOrder(clientId, day, 5_000)));
    const { id: viewerId, token } = await madeOperator("Vera Viewer", "viewer");
    const started = await call("POST", "/admin/orders/exports", { key: token, body: { filter: onDays(days) } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.message).toBe("Export started");
    const job = started.body.data.export;
    expect(job).toMatchObject({
      filter: onDays(days),
      requestedBy: `operator:${viewerId}`,
      requestedByName: "Vera Viewer",
      fromDay: days[0],
      toDay: days[1],
      days: 2,
    });
    await hold(job.id);
    const early = await admin("GET", `/admin/orders/exports/${job.id}/file`);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: "export_not_finished", details: { id: job.id } });
    await release(job.id);
    // The queue's consumer may have run it already; a step it has taken answers "taken" here.
    for (let step = 0; step < 5 && ["stepped", "taken"].includes(await runStep(stepEnv().env, job.id)); step += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const done = await call("GET", `/admin/orders/exports/${job.id}`, { key: token });
    expect(done.body.data.export).toMatchObject({ state: "done", rows: 2, daysDone: 2, days: 2 });
    expect(done.body.data.export.chunks).toBeGreaterThanOrEqual(1);
    const file = await call("GET", `/admin/orders/exports/${job.id}/file`, { key: token });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="orders-export-${job.id}.csv"`);
    expect(file.body).toBe(expectedCsv(rows));
    const listed = await call("GET", "/admin/orders/exports?limit=100", { key: token });
    expect(listed.body.data.exports.map((each: { id: number }) => each.id)).toContain(job.id);
  });

  it.each([
    ["no filter", {}],
    ["a reference prefix without its client", { filter: { reference: "po-" } }],
    ["an unknown filter", { filter: { client: "acme" } }],
    ["a state that is not one", { filter: { state: "lost" } }],
    ["a time as text", { filter: { createdFrom: "yesterday" } }],
  ])("refuses %s with 400 and stores no job", async (_name, body) => {
    const before = await jobCount();
    const answer = await admin("POST", "/admin/orders/exports", body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.code).toBe("invalid_request_body");
    expect(await jobCount()).toBe(before);
  });

  it("an unknown export is 404, a malformed id 400, and the list pages newest first", async () => {
    expect((await admin("GET", "/admin/orders/exports/987654")).body.code).toBe("export_not_found");
    expect((await admin("GET", "/admin/orders/exports/987654/file")).body.code).toBe("export_not_found");
    expect((await admin("GET", "/admin/orders/exports/x")).status).toBe(400);
    for (let made = 0; made < 3; made += 1)
      await call("POST", "/admin/orders/exports", { key: ADMIN_TOKEN, body: { filter: { clientId: uid("nobody") } } });
    const first = await admin("GET", "/admin/orders/exports?limit=2");
    expect(first.body.data.exports).toHaveLength(2);
    const ids = first.body.data.exports.map((each: { id: number }) => each.id);
    expect(ids[0]).toBeGreaterThan(ids[1]);
    expect(first.body.data.next).toBe(ids[1]);
    const second = await admin("GET", `/admin/orders/exports?limit=2&before=${first.body.data.next}`);
    expect(second.body.data.exports[0].id).toBeLessThan(ids[1]);
  });
});

describe("the console's Exports page", () => {
  it("starts an export with the Orders page's filters and links the file of a finished one", async () => {
    const viewer = await signedIn("viewer", "Vic Viewer");
    const days = daysOfOwn(1);
    const day = new Date(days[0]! * 86_400_000).toISOString().slice(0, 10);
    const page = await fetchConsole("GET", `/console/orders/exports?createdFrom=${day}&createdTo=${day}&state=failed`, {
      cookie: viewer,
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="createdFrom" value="' + day + '"');
    const before = await jobCount();
    const started = await fetchConsole("POST", "/console/orders/exports", {
      cookie: viewer,
      form: { createdFrom: day, createdTo: day, state: "failed", sku: "" },
    });
    expect(started.status).toBe(303);
    expect(started.headers.get("location")).toBe("/console/orders/exports?notice=started");
    expect(await jobCount()).toBe(before + 1);
    const job = await env.DB.prepare(
      `SELECT id, filter, requested_by_name FROM order_exports ORDER BY id DESC LIMIT 1`,
    ).first<{
      id: number;
      filter: string;
      requested_by_name: string;
    }>();
    expect(job!.requested_by_name).toBe("Vic Viewer");
    expect(JSON.parse(job!.filter)).toEqual({ ...onDays(days), state: "failed" });
    for (let step = 0; step < 5 && ["stepped", "taken"].includes(await runStep(stepEnv().env, job!.id)); step += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const listed = await fetchConsole("GET", "/console/orders/exports", { cookie: viewer });
    expect(listed.text).toContain(`href="/console/orders/exports/${job!.id}"`);
    const file = await fetchConsole("GET", `/console/orders/exports/${job!.id}`, { cookie: viewer });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.text.startsWith("id,client_id,reference,")).toBe(true);
    const bad = await fetchConsole("POST", "/console/orders/exports", {
      cookie: viewer,
      form: { createdFrom: "soon" },
    });
    expect(bad.status).toBe(400);
    expect(await jobCount()).toBe(before + 1);
    expect((await fetchConsole("GET", "/console/orders/exports/987654", { cookie: viewer })).status).toBe(404);
  });
});
