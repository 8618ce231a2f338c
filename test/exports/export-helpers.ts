/**
 * What the export tests share: orders written straight into the client's books on days of their own
 * (far in the past, so that no other test's rows fall in them), a job stored without its first message,
 * the env its steps run in with a queue that records what is handed on, a job run to its end, and the
 * CSV a job must write for a set of rows (the walk's order: days newest first, then client and part,
 * each part newest first).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { writeToBooks } from "../../src/books/books-writer";
import { bookWriteOf, type BookedOrder, type BookState } from "../../src/books/row-rules";
import { DAY_MS, dayOf, newestFirst, partOf } from "../../src/books/shard-rules";
import type { StoredRow } from "../../src/books/shard-store";
import { exportFile } from "../../src/exports/export-jobs";
import { jobFilter, walkDays, type ExportFilter, type StepBounds } from "../../src/exports/export-rules";
import type { ExportEnv } from "../../src/exports/export-step";
import { runStep } from "../../src/exports/export-step";
import { insertJob, jobById, type ExportJob } from "../../src/exports/export-store";
import { csvLine } from "../../src/kernel/csv-export";
import { ORDER_CSV_COLUMNS, orderCsvLine, orderSummaryOf } from "../../src/order-index/order-search";
import { bookedOrderOf, deliveredLine } from "../book-helpers";

/** The first day no run of days of this file has taken yet: a day between 1990 and 2010. */
let nextOwnDay = 7_300 + Math.floor(Math.random() * 7_000);

/**
 * A run of days of its own: `count` days after every run this file took before, so that an export across
 * clients over them sees this test's orders alone (two random runs of one file could meet).
 */
export function daysOfOwn(count: number): number[] {
  const first = nextOwnDay;
  nextOwnDay += count + 1;
  return Array.from({ length: count }, (_, at) => first + at);
}

/** An order of `clientId` created on `day`, `msIntoDay` into it. */
export function bookedOrder(
  clientId: string,
  day: number,
  msIntoDay: number,
  overrides: Partial<BookedOrder> = {},
): BookedOrder {
  const createdAt = day * DAY_MS + msIntoDay;
  const sku = (overrides.lines?.[0] as { sku?: string } | undefined)?.sku ?? "DEMO-US-RANGE";
  return bookedOrderOf(clientId, {
    charge: "5.5",
    createdAt,
    modifiedAt: createdAt + 10,
    lines: [deliveredLine(sku, "5.5")],
    ...overrides,
  });
}

/** Writes orders to their shards as their `index` timer does; answers their rows as the books hold them. */
export async function book(orders: BookedOrder[]): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  for (const order of orders) {
    const write = bookWriteOf(order, 1);
    await writeToBooks(env.BOOKS, write);
    const { deliveredCodes: _codes, ...row } = write;
    rows.push({ ...row, codes: 0, codesHash: "", chargeHash: "", refundHash: "", deliveries: {} });
  }
  return rows;
}

/** Splits a client's days from `fromDay` on into `parts` parts (set straight in D1: the day is past). */
export async function splitDays(clientId: string, fromDay: number, parts: number): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO books_layouts (client_id, from_day, parts, set_at, set_by) VALUES (?1, ?2, ?3, 0, 'test')`,
  )
    .bind(clientId, fromDay, parts)
    .run();
}

/** A job of `filter` stored as startExport stores it, without handing on its first step. */
export async function storedJob(filter: ExportFilter, firstDay: number | null): Promise<ExportJob> {
  const stored = jobFilter(filter, Date.now());
  return insertJob(
    env.DB,
    { filter: stored, ...walkDays(stored, firstDay), requestedBy: "operator:opr_test", requestedByName: "Test" },
    Date.now(),
  );
}

/** The env a step runs in, with a queue that records the jobs handed on instead of sending them. */
export function stepEnv(): { env: ExportEnv; handedOn: number[] } {
  const handedOn: number[] = [];
  const queue = {
    send: async (body: { exportId: number }) => void handedOn.push(body.exportId),
    sendBatch: async (messages: { body: { exportId: number } }[]) =>
      void handedOn.push(...messages.map((message) => message.body.exportId)),
  } as unknown as Queue;
  return { env: { DB: env.DB, BOOKS: env.BOOKS, EXPORTS: env.EXPORTS, EXPORT_STEPS: queue }, handedOn };
}

/** Runs a job's steps until it is done; answers the steps run. */
export async function runToEnd(stepsEnv: ExportEnv, id: number, bounds?: StepBounds, most = 200): Promise<number> {
  for (let steps = 1; steps <= most; steps += 1) if ((await runStep(stepsEnv, id, bounds)) === "done") return steps;
  throw new Error(`export ${id} not done after ${most} steps`);
}

/** A done job's file, as the download streams it. */
export async function fileOf(id: number): Promise<string> {
  const job = (await jobById(env.DB, id))!;
  expect(job.state).toBe("done");
  return new Response(exportFile(env, job)).text();
}

/** The parts of a client's day, for the expected order of rows. */
export type Parts = (clientId: string, day: number) => number;

/** The CSV a job must write for `rows`: the header, then the rows in the walk's order. */
export function expectedCsv(rows: readonly StoredRow[], parts: Parts = () => 1): string {
  const partOfRow = (row: StoredRow) => partOf(row.id, parts(row.clientId, dayOf(row.createdAt)));
  const ordered = [...rows].sort(
    (a, b) =>
      dayOf(b.createdAt) - dayOf(a.createdAt) ||
      (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0) ||
      partOfRow(a) - partOfRow(b) ||
      newestFirst(a, b),
  );
  return csvLine([...ORDER_CSV_COLUMNS]) + ordered.map((row) => orderCsvLine(orderSummaryOf(row))).join("");
}

/** The filter of every order on `days`. */
export function onDays(days: readonly number[]): { createdFrom: number; createdTo: number } {
  return { createdFrom: days[0]! * DAY_MS, createdTo: (days[days.length - 1]! + 1) * DAY_MS - 1 };
}

export type { BookState };
