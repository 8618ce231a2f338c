/**
 * The exports across clients under faults: each seam of a step (src/exports/seams.ts) failed before its
 * call and after it (the call made, its answer lost), and, as a run cut off there would leave it, with its
 * claim still held until its lease runs out; then the job is left to what follows (the queue's retry, or
 * the cron's hand-on once the lease is over) and run to its end with small steps. After every case:
 *
 * - the file is exactly the one a job with no fault writes: every order once, in the walk's order;
 * - the job counts each order once and one chunk a step, and R2 holds no chunk past its last;
 * - a failed step's cursor did not move without its chunk.
 *
 * A seam of the exports without a case here fails the coverage test.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { handOnLostSteps } from "../../src/exports/export-jobs";
import { chunkKey, LOST_AFTER_MS } from "../../src/exports/export-rules";
import { runStep } from "../../src/exports/export-step";
import { jobById } from "../../src/exports/export-store";
import { EXPORT_SEAMS } from "../../src/exports/seams";
import { armFault, clearFaults, firedFaults, InjectedFault, type FaultWhen } from "../../src/kernel/faults";
import { uid } from "../order-helpers";
import {
  book,
  bookedOrder,
  daysOfOwn,
  expectedCsv,
  fileOf,
  onDays,
  runToEnd,
  stepEnv,
  storedJob,
} from "../exports/export-helpers";

afterEach(clearFaults);

const BOUNDS = { rows: 3, shards: 2 };

/** Two clients over two days, 4 orders each day. */
async function history() {
  const days = daysOfOwn(2);
  const clients = [uid("crash-a"), uid("crash-b")];
  const rows = await book(
    days.flatMap((day) =>
      clients.flatMap((clientId) => [1, 2, 3, 4].map((at) => bookedOrder(clientId, day, at * 1_000))),
    ),
  );
  return { days, rows };
}

/** What a run cut off at the seam leaves: its claim held until its lease runs out. */
async function cutOff(id: number): Promise<void> {
  await env.DB.prepare(`UPDATE order_exports SET run = 'cut-off', lease_until = ?2 WHERE id = ?1 AND state = 'running'`)
    .bind(id, Date.now() + 600_000)
    .run();
}

/** The lease of the run cut off runs out. */
async function leaseOver(id: number): Promise<void> {
  await env.DB.prepare(`UPDATE order_exports SET lease_until = 0 WHERE id = ?1 AND run = 'cut-off'`).bind(id).run();
}

const CASES = Object.values(EXPORT_SEAMS).flatMap((seam) =>
  (["before", "after"] as FaultWhen[]).flatMap((when) => [
    { seam, when, cut: false },
    { seam, when, cut: true },
  ]),
);

describe("the exports' fault seams", () => {
  it("each has cases here", () => {
    const covered = new Set(CASES.map((each) => each.seam));
    expect(Object.values(EXPORT_SEAMS).filter((seam) => !covered.has(seam))).toEqual([]);
  });

  it.each(CASES)(
    "a step failed at $seam ($when, cut off: $cut) resumes to the same file",
    async ({ seam, when, cut }) => {
      const { days, rows } = await history();
      const { env: stepsEnv, handedOn } = stepEnv();
      const job = await storedJob(onDays(days), days[0]!);
      // The fault strikes the second step, once the first has written its chunk and moved on.
      expect(await runStep(stepsEnv, job.id, BOUNDS)).toBe("stepped");
      const before = (await jobById(env.DB, job.id))!;
      armFault(seam, { when });
      const failed = await runStep(stepsEnv, job.id, BOUNDS).then(
        () => null,
        (error: unknown) => error,
      );
      expect(firedFaults()).toEqual([`${seam}:${when}`]);
      expect(failed).toBeInstanceOf(InjectedFault);
      const after = (await jobById(env.DB, job.id))!;
      // The cursor moved only once its chunk was written: a fault at or before the move leaves it.
      const moved = seam === EXPORT_SEAMS.handOn || (seam === EXPORT_SEAMS.cursorMove && when === "after");
      expect(after.step).toBe(before.step + (moved ? 1 : 0));
      if (moved) expect(await env.EXPORTS.get(chunkKey(job.id, before.step))).not.toBeNull();
      if (cut) {
        await cutOff(job.id);
        // While the cut-off run's lease lasts, the step is taken, and the cron leaves it.
        if (after.state === "running") expect(await runStep(stepsEnv, job.id, BOUNDS)).toBe("taken");
        expect(await handOnLostSteps(stepsEnv, Date.now() + LOST_AFTER_MS + 1)).toBe(0);
        await leaseOver(job.id);
      }
      // The next step is handed on by the queue's retry, or by the cron when the message was never sent.
      const handedBefore = handedOn.length;
      await handOnLostSteps(stepsEnv, Date.now() + LOST_AFTER_MS + 1);
      if (seam === EXPORT_SEAMS.handOn) expect(handedOn.slice(handedBefore)).toEqual([job.id]);
      await runToEnd(stepsEnv, job.id, BOUNDS);
      expect(await fileOf(job.id)).toBe(expectedCsv(rows));
      const done = (await jobById(env.DB, job.id))!;
      expect(done.rows).toBe(rows.length);
      expect(await env.EXPORTS.get(chunkKey(job.id, done.step))).toBeNull();
      const listed = await env.EXPORTS.list({ prefix: `exports/${job.id}/` });
      expect(listed.objects.map((object) => object.key)).toEqual(
        Array.from({ length: done.step }, (_, chunk) => chunkKey(job.id, chunk)),
      );
    },
  );
});
