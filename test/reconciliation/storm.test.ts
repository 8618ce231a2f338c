/**
 * The storm (issue 43): client A creates and confirms orders as fast as this machine lets it and leaves
 * unconfirmed as many as its balance holds, while the reconciliation's passes run; a tampering of client
 * B's books made meanwhile is named by the first pass that checks B's day. `npm test` runs it for 30 s;
 * `npm run bench:storm` for 10 minutes (STORM_SECONDS), printing the time from each tampering to its
 * mismatch.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { runAndStore, type Reconciliation } from "../../src/reconciliation/reconciliation";
import { confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { indexNow, uid } from "../order-helpers";
import { auditedClient, freshCheckpoint, order, publish, tamperBooks } from "./reconciliation-helpers";

const STORM_SECONDS = Number((env as unknown as { STORM_SECONDS?: string }).STORM_SECONDS ?? "30");
/** How many of A's requests are in flight at once. */
const AT_ONCE = 6;
/** How often B's books are tampered with during the storm, and a pass made. */
const TAMPER_EVERY_MS = 5_000;
/** The passes' grace: an order changed this recently is left settling. */
const GRACE_SECONDS = 4;

beforeAll(seedDemo);

/** Client A's storm until `until`: creates, confirms most and leaves every third unconfirmed. */
async function storm(key: string, until: number, counts: { created: number; confirmed: number; refused: number }) {
  const one = async () => {
    while (Date.now() < until) {
      const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], reference: uid("storm") }, key);
      if (created.status !== 200) {
        counts.refused += 1;
        continue;
      }
      counts.created += 1;
      const id = created.body.data.id as string;
      if (counts.created % 3 !== 0 && (await confirmOrder(id, key)).status === 200) counts.confirmed += 1;
      // As the order's `index` timer does 2 s after the change.
      await indexNow(id);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, one));
}

const namedIn = (run: Reconciliation, orderId: string) =>
  run.mismatches.some((mismatch) => mismatch.orderId === orderId);

describe("the storm", () => {
  it(
    "names a tampering of client B's books within one pass of B's day while client A storms",
    async () => {
      await freshCheckpoint();
      const a = await auditedClient({ USD: "1000000" });
      const b = await auditedClient();
      const counts = { created: 0, confirmed: 0, refused: 0 };
      const began = Date.now();
      const until = began + STORM_SECONDS * 1000;
      const storming = storm(a.key, until, counts);
      const delays: number[] = [];
      const passMs: number[] = [];
      let passes = 0;
      let checkedA = 0;
      // B's orders wait a round before they are tampered with: a pass judges an order once it has settled
      // (here a grace of GRACE_SECONDS; 600 s in production), as A's orders in flight are left settling.
      let previous = await order(b.key, [line("DEMO-US-RANGE", 5, 1)]);
      while (Date.now() < until - TAMPER_EVERY_MS / 2) {
        await new Promise((resolve) => setTimeout(resolve, TAMPER_EVERY_MS));
        const next = await order(b.key, [line("DEMO-US-RANGE", 5, 1)]);
        await tamperBooks(b.id, `UPDATE orders SET total = '7', charged = '7' WHERE id = ?1`, previous);
        // Both shards publish their day's changes (A's every minute by its busy rule, B's within the hour).
        await publish(a.id);
        await publish(b.id);
        const tamperedAt = Date.now();
        const passStarted = performance.now();
        const run = await runAndStore(env, Date.now(), { graceSeconds: GRACE_SECONDS });
        passMs.push(performance.now() - passStarted);
        passes += 1;
        checkedA += run.checked.days - 1;
        // The first pass after the tampering checks B's day and names it, whatever A is doing.
        expect(namedIn(run, previous)).toBe(true);
        delays.push(Date.now() - tamperedAt);
        for (const alert of run.alerts) expect(alert).not.toContain(b.id);
        previous = next;
      }
      await storming;
      // The last pass after the storm: A's day is checked too, and what the tamperings did is all it finds.
      await publish(a.id);
      await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000));
      const last = await runAndStore(env, Date.now(), { graceSeconds: GRACE_SECONDS });
      expect(last.mismatches.filter((mismatch) => mismatch.clientId === a.id)).toEqual([]);
      const sorted = [...delays].sort((x, y) => x - y);
      const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
      console.log(
        `storm of ${STORM_SECONDS} s: A created ${counts.created} orders (${counts.confirmed} confirmed, ` +
          `${counts.refused} refused); ${passes} passes (A's day checked in ${checkedA}), each naming B's tampering; tampering to mismatch ` +
          `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms; a pass took ${Math.round(Math.max(...passMs))} ms at most; ` +
          `alerts of the last pass: ${JSON.stringify(last.alerts)}`,
      );
      expect(passes).toBeGreaterThan(0);
      expect(counts.created).toBeGreaterThan(0);
    },
    (STORM_SECONDS + 120) * 1000,
  );
});
