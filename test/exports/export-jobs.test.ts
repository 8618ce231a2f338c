/**
 * The exports across clients (src/exports/): a job walks the client's books through their directory,
 * days newest first, then client and part, and writes at most a step's bound of orders as one numbered
 * chunk before it moves its cursor. Several filters, small step bounds (chunks of a few rows, steps of a
 * few shards), a split day, two runs of one step at once, the cron handing on a lost step, and the file
 * equal to what the single-client export streams for the same orders.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { handOnLostSteps } from "../../src/exports/export-jobs";
import { chunkKey, LOST_AFTER_MS, takeRows } from "../../src/exports/export-rules";
import { runStep } from "../../src/exports/export-step";
import { claimStep, jobById, moveCursor } from "../../src/exports/export-store";
import { DAY_MS } from "../../src/books/shard-rules";
import { admin } from "../admin-helpers";
import { call, line, seedDemo } from "../helpers";
import { drainTimers, freshClient, indexNow, uid } from "../order-helpers";
import {
  book,
  bookedOrder,
  daysOfOwn,
  expectedCsv,
  fileOf,
  onDays,
  runToEnd,
  splitDays,
  stepEnv,
  storedJob,
} from "./export-helpers";

beforeAll(seedDemo);

/** Three clients over three days: a few orders each, of two states and two SKUs; one day of one client split. */
async function history() {
  const days = daysOfOwn(3);
  const clients = ["a", "b", "c"].map((name) => uid(`exp-${name}`));
  await splitDays(clients[1]!, days[1]!, 2);
  const orders = days.flatMap((day, d) =>
    clients.flatMap((clientId, c) =>
      Array.from({ length: 2 + ((d + c) % 3) }, (_, at) =>
        bookedOrder(clientId, day, 1_000 * (at + 1) + c, {
          state: at % 2 === 0 ? "successful" : "failed",
          reference: at === 0 ? `=cmd-${at}` : uid("ref"),
          ...(at === 1 ? { lines: [{ ...bookedOrder(clientId, day, 0).lines[0]!, sku: "DEMO-EU-FIXED" }] } : {}),
        }),
      ),
    ),
  );
  const rows = await book(orders);
  const parts = (clientId: string, day: number) => (clientId === clients[1] && day >= days[1]! ? 2 : 1);
  return { days, clients, rows, parts };
}

describe("an export across clients", () => {
  it("writes every order of its days, each chunk at most its step's rows, in the walk's order", async () => {
    const { days, rows, parts } = await history();
    const { env: stepsEnv, handedOn } = stepEnv();
    const whole = await storedJob(onDays(days), days[0]!);
    expect(await runToEnd(stepsEnv, whole.id)).toBe(1);
    // A split day's parts are walked in order; the other days have one part.
    const file = await fileOf(whole.id);
    expect(file).toBe(expectedCsv(rows, parts));
    expect((await jobById(env.DB, whole.id))!.rows).toBe(rows.length);
    // A formula-like reference is neutralised, as in the single-client export.
    expect(file).toContain(",'=cmd-0,");

    const small = await storedJob(onDays(days), days[0]!);
    const steps = await runToEnd(stepsEnv, small.id, { rows: 3, shards: 2 });
    expect(await fileOf(small.id)).toBe(file);
    const job = (await jobById(env.DB, small.id))!;
    expect(job.step).toBe(steps);
    expect(job.rows).toBe(rows.length);
    expect(steps).toBeGreaterThanOrEqual(Math.ceil(rows.length / 3));
    for (let chunk = 0; chunk < job.step; chunk += 1) {
      const text = await (await env.EXPORTS.get(chunkKey(small.id, chunk)))!.text();
      expect(text.split("\r\n").length - 1).toBeLessThanOrEqual(3);
    }
    expect(await env.EXPORTS.get(chunkKey(small.id, job.step))).toBeNull();
    // Each step but the last handed on the next.
    expect(handedOn.filter((id) => id === small.id)).toHaveLength(steps - 1);
  });

  it.each([
    ["a state", (c: string[]) => ({ state: "failed" as const }), (row: { state: string }) => row.state === "failed"],
    ["a SKU", () => ({ sku: "DEMO-EU-FIXED" }), (row: { skus: string[] }) => row.skus.includes("DEMO-EU-FIXED")],
    [
      "a client and a reference prefix",
      (c: string[]) => ({ clientId: c[2]!, reference: "=cmd" }),
      (row: { reference: string }, c: string[]) => row.reference.startsWith("=cmd"),
    ],
  ])("takes only the orders of %s", async (_name, filterOf, keeps) => {
    const { days, clients, rows, parts } = await history();
    const filter = { ...onDays(days), ...filterOf(clients) };
    const job = await storedJob(filter, days[0]!);
    await runToEnd(stepEnv().env, job.id, { rows: 2, shards: 3 });
    const kept = rows.filter(
      (row) =>
        (keeps as (r: typeof row, c: string[]) => boolean)(row, clients) &&
        ("clientId" in filter ? row.clientId === filter.clientId : true),
    );
    expect(kept.length).toBeGreaterThan(0);
    expect(await fileOf(job.id)).toBe(expectedCsv(kept, parts));
  });

  it("takes a creation range within a day, and nothing of the days outside it", async () => {
    const { days, rows, parts } = await history();
    const from = days[1]! * DAY_MS + 2_000;
    const to = days[2]! * DAY_MS + 1_500;
    const job = await storedJob({ createdFrom: from, createdTo: to }, days[0]!);
    await runToEnd(stepEnv().env, job.id, { rows: 4, shards: 1 });
    const kept = rows.filter((row) => row.createdAt >= from && row.createdAt <= to);
    expect(await fileOf(job.id)).toBe(expectedCsv(kept, parts));
    expect((await jobById(env.DB, job.id))!.rows).toBe(kept.length);
  });

  it("with nothing to export writes one empty chunk and is done", async () => {
    const days = daysOfOwn(1);
    const job = await storedJob(onDays(days), days[0]!);
    expect(await runStep(stepEnv().env, job.id)).toBe("done");
    expect(await fileOf(job.id)).toBe(
      "id,client_id,reference,state,wallet,total,charged,refunded,skus,created_at,modified_at,expires_at\r\n",
    );
  });
});

describe("a step run twice", () => {
  it("two runs of one step at once: one writes the chunk and moves the cursor, the other leaves it", async () => {
    const { days, rows, parts } = await history();
    const job = await storedJob(onDays(days), days[0]!);
    const { env: stepsEnv } = stepEnv();
    const answers = await Promise.all([
      runStep(stepsEnv, job.id, { rows: 4, shards: 2 }),
      runStep(stepsEnv, job.id, { rows: 4, shards: 2 }),
    ]);
    expect(answers.sort()).toEqual(["stepped", "taken"]);
    const after = (await jobById(env.DB, job.id))!;
    expect(after.step).toBe(1);
    expect(after.rows).toBe(4);
    await runToEnd(stepsEnv, job.id, { rows: 4, shards: 2 });
    expect(await fileOf(job.id)).toBe(expectedCsv(rows, parts));
  });

  it("a run finds a step another run holds taken, and writes no chunk, until that run's lease is over", async () => {
    const { days } = await history();
    const job = await storedJob(onDays(days), days[0]!);
    const now = Date.now();
    expect(await claimStep(env.DB, { id: job.id, step: 0, run: "run-first", until: now + 600_000, now })).toBe(true);
    const { env: stepsEnv } = stepEnv();
    expect(await runStep(stepsEnv, job.id, { rows: 4, shards: 2 })).toBe("taken");
    expect(await env.EXPORTS.get(chunkKey(job.id, 0))).toBeNull();
    expect(await jobById(env.DB, job.id)).toMatchObject({ step: 0, cursor: null });
    await env.DB.prepare(`UPDATE order_exports SET lease_until = ?2 WHERE id = ?1`)
      .bind(job.id, now - 1)
      .run();
    expect(await runStep(stepsEnv, job.id, { rows: 4, shards: 2 })).toBe("stepped");
  });

  it("the cursor moves once from a step, and only by the run that claimed it", async () => {
    const days = daysOfOwn(1);
    const job = await storedJob(onDays(days), days[0]!);
    const now = Date.now();
    expect(await claimStep(env.DB, { id: job.id, step: 0, run: "run-a", until: now + 60_000, now })).toBe(true);
    expect(await claimStep(env.DB, { id: job.id, step: 0, run: "run-b", until: now + 60_000, now })).toBe(false);
    const next = { clientId: "x", day: days[0]!, part: 0, after: null };
    expect(await moveCursor(env.DB, { id: job.id, step: 0, run: "run-b", next, rows: 1 }, now)).toBe(false);
    expect(await moveCursor(env.DB, { id: job.id, step: 0, run: "run-a", next, rows: 1 }, now)).toBe(true);
    expect(await moveCursor(env.DB, { id: job.id, step: 0, run: "run-a", next, rows: 1 }, now)).toBe(false);
    expect(await jobById(env.DB, job.id)).toMatchObject({ step: 1, rows: 1, cursor: next, state: "running" });
  });
});

describe("the cron", () => {
  it("hands on a running job whose step has not moved and that no run holds, and nothing else", async () => {
    const days = daysOfOwn(1);
    const { env: stepsEnv, handedOn } = stepEnv();
    const lost = await storedJob(onDays(days), days[0]!);
    const held = await storedJob(onDays(days), days[0]!);
    const done = await storedJob(onDays(days), days[0]!);
    await runToEnd(stepsEnv, done.id);
    const now = Date.now();
    expect(await claimStep(env.DB, { id: held.id, step: 0, run: "run-alive", until: now + 600_000, now })).toBe(true);
    // Not yet: a step has a minute before it counts as lost.
    await handOnLostSteps(stepsEnv, now);
    expect(handedOn).not.toContain(lost.id);
    await handOnLostSteps(stepsEnv, now + LOST_AFTER_MS + 1);
    expect(handedOn).toContain(lost.id);
    expect(handedOn).not.toContain(held.id);
    expect(handedOn).not.toContain(done.id);
    // The handed-on message runs the step.
    expect(await runStep(stepsEnv, lost.id)).toBe("done");
  });
});

describe("the file", () => {
  it("is what GET /admin/orders/export streams for the same orders of one client", async () => {
    const { id: clientId, key } = await freshClient({ USD: "1000" });
    const ids: string[] = [];
    for (const reference of ["=SUM(A1)", "po-1", "+po-2", "po 3"]) {
      const created = await call("POST", "/order/create", {
        key,
        body: { productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids.push(created.body.data.id);
    }
    for (const orderId of ids.slice(1)) {
      expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
      await drainTimers(orderId);
    }
    await indexNow(...ids);
    const streamed = await admin("GET", `/admin/orders/export?clientId=${clientId}`);
    expect(streamed.status).toBe(200);
    const job = await storedJob({ clientId }, null);
    await runToEnd(stepEnv().env, job.id, { rows: 1, shards: 1 });
    expect(await fileOf(job.id)).toBe(streamed.body);
  });
});

describe("takeRows", () => {
  const row = (createdAt: number, id: string) => ({ createdAt, id }) as never;
  const at = (part: number) => ({ clientId: "c", day: 3, part });
  it("continues a shard after its last row taken, or starts the next shard, or ends the walk", () => {
    const reads = [
      { address: at(0), rows: [row(9, "b"), row(8, "a")], asked: 4 },
      { address: at(1), rows: [row(7, "c"), row(6, "d")], asked: 4 },
    ];
    expect(takeRows(reads, 3, true).next).toEqual({ ...at(1), after: { createdAt: 7, id: "c" } });
    expect(takeRows(reads, 2, true).next).toEqual({ ...at(1), after: null });
    expect(takeRows(reads, 4, true)).toMatchObject({ next: null });
    expect(takeRows(reads, 4, false).next).toEqual({
      ...at(1),
      after: { createdAt: 3 * DAY_MS, id: `ord_${"0".repeat(64)}` },
    });
  });
});
