/**
 * The reconciliation (docs/operator-api.md, Reconciliation): the books, the wallets' ledgers, the codes
 * table and the audit log compared by wallet and day. A pass follows activity: the wallet-days whose books
 * changed since their last check (the books' published changes), those its feeds name (a posting audited, a
 * wallet moved, a code sold), those still settling or disagreeing, and sealed days due their
 * re-verification. Each day is checked on its own, within bounds (day-check.ts), so one client's volume
 * makes only its own days slower; what each check decided is stored with the day (day-store.ts).
 *
 * The scheduled pass (every 5 minutes) and an operator's run from the console store what they find; GET
 * /admin/reconciliation and a viewer's run check the days of a span and write nothing but their rate limit.
 */
import { retentionOf } from "../books/directory-store";
import { firstKeptDay } from "../books/retention-rules";
import { dayOf } from "../books/shard-rules";
import { codesSoldAfter, type SoldCode, type SoldCursor } from "../inventory/code-store";
import { log } from "../kernel/log";
import { orderRecordById } from "../orders/order-lookup";
import { movedWalletsBetween } from "../wallets/wallet-registry-store";
import { handOut } from "./day-queue";
import { dayKey, OPEN_DAYS, type WalletDay } from "./day-rules";
import { checkDays, checkedDayStatements, dayAlerts, sumChecked, type CheckedDay } from "./day-runs";
import { backlogAlert } from "./day-share-rules";
import { registryOf, type ReconcileEnv } from "./day-sources";
import { keepDueStatement, knownDays, retiredStatement, type DueDay } from "./day-store";
import { duePager, listPager, takeDays, type DuePager } from "./due-pages";
import { Findings } from "./findings";
import { inBatches } from "./order-drill";
import { lastAuditIdBefore, postingAuditsAfter } from "./reconciliation-feeds";
import { DEFAULT_GRACE_SECONDS, unfinishedAlert, type Checked, type Reconciliation } from "./reconciliation-rules";
import {
  checkpointStatement,
  findingStatements,
  loadCheckpoint,
  markStarted,
  saveRunStatement,
  standingFindings,
  takeDemand,
  STORED_MISMATCHES,
} from "./reconciliation-store";
import { checkAudit, targetWallet } from "./wallet-checks";

export type { Checked, Mismatch, Reconciliation } from "./reconciliation-rules";
export type { ReconcileEnv } from "./day-sources";

/** What one pass (or one read-only run) reads at most; the rest is the next pass's. */
export interface Budget {
  /** Wallet-days checked by the pass itself, and at most `perClient` of one client in all. */
  days: number;
  perClient: number;
  /** Wallet-days beyond those handed to the queue's consumers (a stored pass only; 0: none). */
  handOut: number;
  /** Due wallet-days read from D1 in one statement (a page of one kind). */
  page: number;
  /** Audit rows of postings, codes sold and wallets moved read from the feeds. */
  audits: number;
  codes: number;
  moves: number;
}

/**
 * A check asks one object per part of the day (its rows), one per object of the wallet (its day) and one
 * per order it drills into; a pass of 200 days of small clients makes about 600 object calls and 630 D1
 * queries, within the 1,000 queries D1 allows one invocation besides the pass's own reads, and the drills
 * (DRILL_LIMIT a day) and the feeds' order look-ups (one per order a code was sold to) stay under the 10,000
 * subrequests one invocation may make. The hand-out is sized to the projection (docs/benchmarks.md): about
 * 94,000 checks are due a pass of 5 minutes at 1,000,000 wallets, so a pass hands out up to 100,000, read
 * in pages of 10,000 (some 33 D1 statements) and sent as 1,000 messages of 100 days.
 */
export const BUDGET: Budget = {
  days: 200,
  perClient: 8,
  handOut: 100_000,
  page: 10_000,
  audits: 300,
  codes: 1_000,
  moves: 50,
};

/** The most pages of due days a pass reads: enough for its budget from each of the three kinds, and one more each. */
export function maxPages(budget: Budget): number {
  return 3 * (Math.ceil((budget.days + budget.handOut) / budget.page) + 1);
}

/** What a pass or a run reads and finds. */
interface Plan {
  now: number;
  settledBy: number;
  /** The days due, in pages. */
  due: DuePager;
  budget: Budget;
  /** The feeds' span: audit rows after this id, codes sold after this cursor, moves after this time, all by `to`. */
  auditId: number;
  codes: SoldCursor;
  movesAt: number;
  to: number;
}

interface Outcome {
  checked: Checked;
  complete: boolean;
  days: CheckedDay[];
  /** Days beyond the pass's own, for the queue (a stored pass hands them out). */
  handed: DueDay[];
  /** Findings of the feeds (audit rows, codes sold), by subject. */
  feed: Findings;
  alerts: string[];
  next: { auditId: number; codes: SoldCursor; movesAt: number };
  /** Days due that this pass left to the next. */
  leftDays: DueDay[];
  left: number;
  /** The last day of changed books it offered: where the next pass starts reading them. */
  lastChanged: WalletDay | null;
}

const key = (day: WalletDay) => dayKey(day);

/** The feeds: each audit row with its entry, each order a code was sold to, each wallet moved; the days they name. */
async function readFeeds(env: ReconcileEnv, plan: Plan, feed: Findings) {
  const named: WalletDay[] = [];
  const audits = await postingAuditsAfter(env.DB, plan.auditId, plan.to, plan.budget.audits);
  const targets = audits.flatMap((audit) => targetWallet(audit.target) ?? []);
  const registry = await registryOf(env.DB, targets);
  for (const audit of audits) {
    const wallet = targetWallet(audit.target);
    const entry = await checkAudit(
      env,
      audit,
      wallet === null ? undefined : registry.get(`${wallet.clientId}\u0000${wallet.currency}`),
      feed,
    );
    if (entry !== null && wallet !== null)
      named.push({ clientId: wallet.clientId, currency: wallet.currency, day: dayOf(entry.createdAt) });
  }
  const moved = await movedWalletsBetween(env.DB, plan.movesAt, plan.to, plan.budget.moves);
  for (const wallet of moved)
    named.push({ clientId: wallet.clientId, currency: wallet.currency, day: dayOf(wallet.movedAt) });
  const codes = await codesSoldAfter(env.DB, plan.codes, plan.to, plan.budget.codes);
  named.push(...(await daysOfCodes(env, codes, feed)));
  const last = <T>(items: readonly T[]) => items[items.length - 1];
  const lastCode = last(codes);
  return {
    named,
    complete:
      audits.length < plan.budget.audits && moved.length < plan.budget.moves && codes.length < plan.budget.codes,
    next: {
      auditId: last(audits)?.id ?? plan.auditId,
      movesAt: last(moved)?.movedAt ?? plan.movesAt,
      codes: lastCode === undefined ? plan.codes : { soldAt: lastCode.soldAt ?? 0, id: lastCode.id },
    },
  };
}

/** The day of each order a code was sold to; a code sold to no order of this service is an `unknown_order`. */
async function daysOfCodes(env: ReconcileEnv, codes: readonly SoldCode[], feed: Findings): Promise<WalletDay[]> {
  const orderIds = [...new Set(codes.map((code) => code.orderId))];
  const records = await inBatches(orderIds, (orderId) => orderRecordById(env.ORDERS, orderId));
  const days: WalletDay[] = [];
  records.forEach((record, at) => {
    const orderId = orderIds[at]!;
    if (record !== null) {
      days.push({ clientId: record.clientId, currency: record.wallet, day: dayOf(record.createdAt) });
      return;
    }
    for (const code of codes.filter((one) => one.orderId === orderId))
      feed.of(
        `order:${orderId}`,
        "unknown_order",
        null,
        null,
        null,
      )(`code #${code.id} (${code.sku}) is sold to ${orderId}, which is no order of this service`);
  });
  return days;
}

/** One pass over `plan`: the feeds, then each day due or named, nothing written. */
async function check(env: ReconcileEnv, plan: Plan): Promise<Outcome> {
  const feed = new Findings();
  const feeds = await readFeeds(env, plan, feed);
  const known = await knownDays(env.DB, feeds.named);
  const named = feeds.named.map(
    (day): DueDay =>
      known.get(key(day)) ?? {
        ...day,
        booksChanges: 0,
        state: null,
        seal: null,
        firstSeenAt: null,
        verified: 0,
        why: "named",
      },
  );
  const { share, stopped } = await takeDays(plan.due, named, plan.budget);
  const { chosen, handed, left } = share;
  const days = await checkDays(env, chosen, { now: plan.now, settledBy: plan.settledBy });
  const checked = sumChecked([feed.counted, ...days.map(({ outcome }) => outcome.findings.counted)]);
  checked.days = days.length;
  checked.sealedDays = days.filter(({ outcome }) => outcome.state === "sealed").length;
  checked.leftToNextRun = left.length + days.reduce((sum, { outcome }) => sum + outcome.settling, 0);
  const alerts = dayAlerts(days, plan.now);
  const took = plan.budget.days + plan.budget.handOut;
  if (left.length > 0 || stopped) alerts.push(backlogAlert(left.length, share.behind(), stopped ? took : null));
  return {
    checked,
    complete: feeds.complete && left.length === 0 && !stopped && days.every(({ outcome }) => outcome.whole),
    days,
    handed,
    feed,
    alerts,
    next: feeds.next,
    leftDays: left,
    left: left.length,
    lastChanged: share.lastChanged,
  };
}

function reconciliationOf(outcome: Outcome, from: number, to: number): Reconciliation {
  const mismatches = [...outcome.feed.all(), ...outcome.days.flatMap(({ outcome: day }) => day.findings.all())].map(
    ({ subject: _, ...mismatch }) => mismatch,
  );
  return {
    createdFrom: from,
    createdTo: to,
    complete: outcome.complete,
    checked: outcome.checked,
    mismatches,
    alerts: outcome.alerts,
  };
}

export interface Period {
  createdFrom: number;
  createdTo: number;
  /** Seconds; DEFAULT_GRACE_SECONDS unless given. */
  grace?: number;
}

/**
 * The checks over a period (the wallet-days with books from `createdFrom`'s day to `createdTo`'s, and the
 * days the postings audited, codes sold and wallets moved in the period name), bounded by the budget: what
 * GET /admin/reconciliation and a viewer's run answer. It writes nothing: no checkpoint, no day, no finding.
 */
export async function reconcile(
  env: ReconcileEnv,
  period: Period,
  now = Date.now(),
  budget: Budget = BUDGET,
): Promise<Reconciliation> {
  const { createdFrom, createdTo } = period;
  const { results } = await env.DB.prepare(
    `SELECT client_id, currency, day, SUM(changes) AS changes FROM books_days WHERE day BETWEEN ?1 AND ?2
      GROUP BY client_id, day, currency LIMIT ?3`,
  )
    .bind(dayOf(createdFrom), dayOf(createdTo), budget.days + 1)
    .all<{ client_id: string; currency: string; day: number; changes: number }>();
  const days = results.map((row): DueDay => ({
    clientId: row.client_id,
    currency: row.currency,
    day: row.day,
    booksChanges: row.changes,
    state: null,
    seal: null,
    firstSeenAt: now,
    verified: 0,
    why: "named",
  }));
  const outcome = await check(env, {
    now,
    settledBy: now - (period.grace ?? DEFAULT_GRACE_SECONDS) * 1000,
    due: listPager(days),
    // Read-only: nothing is handed to the queue, whose consumer stores what it finds.
    budget: { ...budget, handOut: 0 },
    auditId: await lastAuditIdBefore(env.DB, createdFrom),
    codes: { soldAt: createdFrom - 1, id: Number.MAX_SAFE_INTEGER },
    movesAt: createdFrom - 1,
    to: createdTo,
  });
  return reconciliationOf(outcome, createdFrom, createdTo);
}

/**
 * A pass, as the scheduled job (every 5 minutes) and an operator's run from the console make it: the days
 * due and those its feeds name, within the budget; then, in D1 batches, each day's decision and findings
 * (replacing what earlier checks of that day found), the feeds' findings, the checkpoint moved on, and the
 * run stored for the Needs attention list. Every mismatch and alert is one structured log line, and the
 * pass one more. A pass that dies leaves the checkpoint and its days where they were: the next one checks
 * them again and says that this one did not finish.
 */
export async function runAndStore(
  env: ReconcileEnv & Partial<Pick<Env, "RECONCILE">>,
  now = Date.now(),
  { budget = BUDGET, graceSeconds = DEFAULT_GRACE_SECONDS }: { budget?: Budget; graceSeconds?: number } = {},
): Promise<Reconciliation> {
  const db = env.DB;
  const checkpoint = await loadCheckpoint(db);
  await markStarted(db, now);
  const taking = env.RECONCILE === undefined ? { ...budget, handOut: 0 } : budget;
  // A sealed day whose books their retention dropped has nothing left to compare: its re-verifications end.
  const due = duePager(db, {
    now,
    fromDay: dayOf(now) - OPEN_DAYS,
    keptFrom: firstKeptDay(now, await retentionOf(db)) ?? -Infinity,
    pageSize: taking.page,
    maxPages: maxPages(taking),
    changedAfter: checkpoint.changedAfter,
  });
  const outcome = await check(env, {
    now,
    settledBy: now - graceSeconds * 1000,
    due,
    budget: taking,
    auditId: checkpoint.auditId,
    codes: checkpoint.codes,
    movesAt: checkpoint.movesAt,
    to: now,
  });
  const unfinished = unfinishedAlert(checkpoint.startedAt, checkpoint.finishedAt);
  if (unfinished !== null) outcome.alerts.unshift(unfinished);
  const statements = [
    ...checkedDayStatements(db, outcome.days, now),
    ...due.retired.map((day) => retiredStatement(db, day)),
  ];
  for (const [subject, found] of outcome.feed.bySubject) statements.push(...findingStatements(db, subject, found, now));
  // A day a feed named stays due until a check of it is stored: the feed's checkpoint moves past it.
  for (const day of [...outcome.leftDays, ...outcome.handed])
    if (day.why === "named") statements.push(keepDueStatement(db, day, now));
  for (let start = 0; start < statements.length; start += 200) await db.batch(statements.slice(start, start + 200));
  if (outcome.handed.length > 0 && env.RECONCILE !== undefined) {
    await handOut(env.RECONCILE, outcome.handed, { now, settledBy: now - graceSeconds * 1000 });
    outcome.checked.handedOut = outcome.handed.length;
  }
  const run = reconciliationOf(outcome, checkpoint.finishedAt, now);
  const standing = await standingFindings(db, STORED_MISMATCHES);
  const rising = outcome.left > checkpoint.leftToNext && outcome.left > 0 ? checkpoint.leftRising + 1 : 0;
  await db.batch([
    checkpointStatement(db, {
      ...checkpoint,
      ...outcome.next,
      finishedAt: now,
      leftToNext: outcome.left,
      leftRising: rising,
      changedAfter: outcome.lastChanged ?? checkpoint.changedAfter,
    }),
    saveRunStatement(db, now, run, standing),
  ]);
  logRun(run, standing.count);
  return run;
}

function logRun(run: Reconciliation, standing: number): void {
  for (const mismatch of run.mismatches)
    log("error", "reconciliation mismatch", { component: "reconciliation", ...mismatch });
  for (const alert of run.alerts) log("error", "reconciliation alert", { component: "reconciliation", alert });
  log("info", "reconciliation", {
    component: "reconciliation",
    createdFrom: run.createdFrom,
    createdTo: run.createdTo,
    complete: run.complete,
    ...run.checked,
    mismatches: run.mismatches.length,
    standing,
  });
}

/** On-demand runs (GET /admin/reconciliation, the console's "run now"): this many per operator a window. */
export const ON_DEMAND_RUNS = 3;
export const ON_DEMAND_WINDOW_MS = 60_000;

/** Takes one of the actor's on-demand runs; false: they have run it ON_DEMAND_RUNS times this minute. */
export function takeOnDemandRun(db: D1Database, actor: string, now = Date.now()): Promise<boolean> {
  return takeDemand(db, actor, now, ON_DEMAND_RUNS, ON_DEMAND_WINDOW_MS);
}
