/**
 * The operator's exports across clients as background jobs (docs/books.md, "Exports across clients"): a
 * job asked for (by the API or the console), its steps run by the queue's consumer (export-step.ts), the
 * steps the cron hands on again when one was lost, what a job shows (its progress), and its file: the
 * header, then its chunks in order, streamed from R2.
 */
import { firstBooksDay } from "../books/directory-store";
import { fail } from "../kernel/failures";
import { logFailure } from "../kernel/log";
import type { Actor } from "../kernel/roles";
import { csvLine } from "../kernel/csv-export";
import { ORDER_CSV_COLUMNS } from "../order-index/order-search";
import { chunkKey, daysDone, jobFilter, LOST_AFTER_MS, walkDays, type ExportFilter } from "./export-rules";
import { insertJob, jobById, lostJobs, type ExportJob } from "./export-store";
import { runStep, type ExportEnv, type StepMessage } from "./export-step";
import type { ExportView as ExportViewShape } from "./export-admin-schemas";
import type * as z from "zod";

/**
 * What a job shows: its filter, its progress and whether its file is ready. The type of the answer the
 * routes declare (export-admin-schemas.ts), so the view cannot drift from what the document says.
 */
export type ExportView = z.output<typeof ExportViewShape>;

export function viewOf(job: ExportJob): ExportView {
  const done = job.state === "done";
  return {
    id: job.id,
    filter: job.filter,
    state: job.state,
    rows: job.rows,
    chunks: job.step,
    fromDay: job.fromDay,
    toDay: job.toDay,
    daysDone: daysDone({ ...job, done }),
    days: job.toDay - job.fromDay + 1,
    requestedBy: job.requestedBy,
    requestedByName: job.requestedByName,
    createdAt: job.createdAt,
    steppedAt: job.steppedAt,
    finishedAt: job.finishedAt,
  };
}

/** The columns an audit row would name the caller by: who asked for a job. */
function askedBy(actor: Actor): { requestedBy: string; requestedByName: string | null } {
  return actor.kind === "operator"
    ? { requestedBy: `operator:${actor.id}`, requestedByName: actor.name }
    : { requestedBy: actor.label ?? "admin", requestedByName: null };
}

/**
 * Starts an export of every order `filter` selects, created until now: stores the job and hands its first
 * step to the queue (a lost message is handed on by the cron). A reference prefix needs its client (400).
 */
export async function startExport(env: ExportEnv, actor: Actor, filter: ExportFilter): Promise<ExportView> {
  if (filter.reference !== undefined && filter.clientId === undefined)
    fail("invalid_request_body", {
      issues: [
        { path: "filter.reference", message: "a reference prefix needs clientId: references are each client's own" },
      ],
    });
  const now = Date.now();
  const stored = jobFilter(filter, now);
  const days = walkDays(stored, await firstBooksDay(env.DB, filter.clientId));
  const job = await insertJob(env.DB, { filter: stored, ...days, ...askedBy(actor) }, now);
  try {
    await env.EXPORT_STEPS.send({ exportId: job.id } satisfies StepMessage);
  } catch (error) {
    logFailure(error, { step: "exports.start", exportId: job.id });
  }
  return viewOf(job);
}

/** A job, or 404 export_not_found. */
export async function requireExport(db: D1Database, id: number): Promise<ExportJob> {
  const job = await jobById(db, id);
  if (job === null) fail("export_not_found", { id });
  return job;
}

/** The queue's consumer: each message runs one step of its job; a step that throws is retried. */
export async function consumeSteps(batch: MessageBatch<StepMessage>, env: ExportEnv): Promise<void> {
  for (const message of batch.messages) {
    try {
      await runStep(env, message.body.exportId);
      message.ack();
    } catch (error) {
      logFailure(error, { step: "exports.step", exportId: message.body.exportId });
      message.retry();
    }
  }
}

/** Jobs the cron hands on at most per run. */
const HANDED_ON_PER_RUN = 100;

/**
 * The cron's part: hands on the step of each running job that has not moved for a while and that no run
 * holds (its message lost, or its run died and its lease ran out). A job handed on twice is stepped once
 * (a step is claimed). Answers the jobs handed on.
 */
export async function handOnLostSteps(env: Pick<ExportEnv, "DB" | "EXPORT_STEPS">, now: number): Promise<number> {
  const ids = await lostJobs(env.DB, now - LOST_AFTER_MS, now, HANDED_ON_PER_RUN);
  if (ids.length > 0) await env.EXPORT_STEPS.sendBatch(ids.map((exportId) => ({ body: { exportId } })));
  return ids.length;
}

/**
 * A done job's file: the header, then each chunk in order, read from R2 as the reader pulls. A chunk
 * missing ends the stream with an error (the download breaks off rather than looking complete); 409
 * export_not_finished while the job runs.
 */
export function exportFile(env: Pick<ExportEnv, "EXPORTS">, job: ExportJob): ReadableStream<Uint8Array> {
  if (job.state !== "done") fail("export_not_finished", { id: job.id, chunks: job.step });
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(csvLine([...ORDER_CSV_COLUMNS])));
      },
      async pull(controller) {
        if (next >= job.step) return controller.close();
        try {
          const chunk = await env.EXPORTS.get(chunkKey(job.id, next));
          if (chunk === null) throw new Error(`export ${job.id}: chunk ${next} is missing`);
          next += 1;
          controller.enqueue(new Uint8Array(await chunk.arrayBuffer()));
        } catch (error) {
          logFailure(error, { step: "exports.file", exportId: job.id });
          controller.error(error);
        }
      },
    },
    { highWaterMark: 1 },
  );
}
