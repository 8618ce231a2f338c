/**
 * The reconciliation (its rules in reconciliation-rules.ts, its tables in reconciliation-store.ts): the
 * order index (written by orders), the wallets' ledgers (written by wallets), the codes table and the audit
 * log, compared so that each catches the others. A run follows activity, never walking idle wallets or
 * orders: it reads what happened since its checkpoint in four feeds (index rows by creation, codes by
 * sold_at, the audit log's postings by id, the registry's moves by moved_at), checks every order and wallet
 * they name, keeps each order still open among its deferred orders until it ends, and moves the checkpoint
 * past what it read; its work is bounded by budgets, and the next run
 * resumes where it stopped. docs/operator-api.md, Reconciliation, says what each check means.
 *
 * The scheduled run (hourly) and an operator's run from the console store what they find; GET
 * /admin/reconciliation and a viewer's run check a span of changes and write nothing but their rate limit.
 */
import { auditedEntries, lastAuditIdBefore, postingAuditsAfter, type PostingAudit } from "./reconciliation-feeds";
import {
  codesByPins,
  codesSoldAfter,
  codesSoldTo,
  type CodeByPin,
  type SoldCode,
  type SoldCursor,
} from "../inventory/code-store";
import { log } from "../kernel/log";
import { Money } from "../pricing/money";
import { walletName, type LedgerEntry } from "../wallets/ledger";
import { walletTarget } from "../wallets/posting-actions";
import type { WalletObject } from "../wallets/wallet-object";
import {
  historyOf,
  movedWalletsBetween,
  placedWallet,
  placementOf,
  registeredWallets,
  registeredWalletsStatement,
  type RegisteredWallet,
} from "../wallets/wallet-registry-store";
import {
  hasEnded,
  indexRowOf,
  indexRowsByReference,
  indexRowsCreatedAfter,
  indexRowsCreatedCount,
  type CreatedCursor,
  type IndexRow,
} from "../order-index/order-index-store";
import { orderRecordById } from "../orders/order-lookup";
import type { OrderRecord } from "../orders/order-record";
import {
  addLine,
  DEFAULT_GRACE_SECONDS,
  DEFERRAL_BOUND_MS,
  deliveryProblem,
  RUN_SLACK_MS,
  INDEX_SETTLED_MS,
  emptyMoney,
  indexProblems,
  ledgerProblems,
  lookAt,
  noneChecked,
  overdueAlert,
  pastBound,
  redeemProblems,
  risingAlert,
  transferProblem,
  unfinishedAlert,
  type Checked,
  type CheckName,
  type OrderMoney,
  type Reconciliation,
} from "./reconciliation-rules";
import {
  checkpointStatement,
  deferredCount,
  deferredOrders,
  deferStatement,
  findingStatements,
  ledgerCursorsOf,
  ledgerCursorStatement,
  loadCheckpoint,
  markStarted,
  restartDeferralStatement,
  saveRunStatement,
  standingFindings,
  standingSubjects,
  takeDemand,
  undeferStatement,
  walletDoneStatement,
  walletLeftStatement,
  walletsLeftOver,
  STORED_MISMATCHES,
  type Checkpoint,
  type Finding,
  type StandingEntry,
} from "./reconciliation-store";

export type { Checked, Mismatch, Reconciliation } from "./reconciliation-rules";

type ReconcileEnv = Pick<Env, "DB" | "WALLETS" | "ORDERS">;

/** A run's budgets: what one run reads at most; the rest is the next run's. */
export interface Budget {
  /** Index rows, codes sold, audit rows and moved wallets read from the feeds. */
  orders: number;
  codes: number;
  audits: number;
  moves: number;
  /** Orders left over by earlier runs, read again. */
  deferred: number;
  /** Orders, wallets and ledger entries with a mismatch standing, checked again (each). */
  standing: number;
  /** Ledger pages (of LEDGER_PAGE entries) read after each wallet object's first, all objects together. */
  ledgerPages: number;
  /** Orders checked, however they were named: the rest are left to the next run. */
  checkedOrders: number;
}

/**
 * A run asks two objects per order it checks (its record, its lines in each object of its wallet), and
 * about three per wallet it reads (its first ledger page, its balance, a transfer's other side). The
 * wallets are those the feeds name (at most 1,000 + 300 + 50), those of orders left over that changed
 * (300), those left over by earlier runs (300) and those with a mismatch standing (100 + 100 entries): with
 * these budgets at most about 1,500 × 2 + 2,150 × 3 + 20 + 100 × 2 ≈ 9,700 calls, under the 10,000
 * subrequests one invocation may make.
 * A run keeps up with about 1,000 new orders an hour; beyond it each run leaves the rest to the next, and
 * the alert lines say when that keeps growing or an order waits past the bound.
 */
export const BUDGET: Budget = {
  orders: 1_000,
  codes: 1_000,
  audits: 300,
  moves: 50,
  deferred: 300,
  standing: 100,
  ledgerPages: 20,
  checkedOrders: 1_500,
};

const LEDGER_PAGE = 500;
/** Order objects asked at once. */
const ASK_AT_ONCE = 16;
/** Keys of a client's own sandbox top-ups: no operator made them, so no audit row names them. */
const SANDBOX_TOP_UP = "sandbox-top-up:";

/** What a run reads: changes after these feed positions and by `to`. */
interface Span {
  orders: CreatedCursor;
  /** The orders feed reads orders created by this time (unix ms, inclusive); the other feeds by `to`. */
  ordersTo: number;
  codes: SoldCursor;
  auditId: number;
  movesAt: number;
  to: number;
  now: number;
  settledBy: number;
  /** Orders left over by earlier runs, and since when. */
  deferred: Map<string, number>;
  /** Wallets whose ledger an earlier run did not read to its end, settled. */
  walletsLeft: { clientId: string; currency: string }[];
  /** Orders and wallets with a mismatch standing: checked again, so that one put right is cleared. */
  recheck: { orders: string[]; wallets: { clientId: string; currency: string }[]; entries: StandingEntry[] };
  /** Where to read each wallet object's ledger from (a seq), by its name. */
  ledgerFrom: (name: string, wallet: DurableObjectStub<WalletObject>) => Promise<number>;
  budget: Budget;
}

/** What a run found and where the feeds stand after it. */
interface Outcome {
  checked: Checked;
  complete: boolean;
  /** Each subject checked, with what its check found (none: in order). */
  findings: Map<string, Finding[]>;
  defer: Map<string, number>;
  /** Orders checked past the bound and still open: kept, their wait counted again from this run. */
  restart: Set<string>;
  undefer: Set<string>;
  ledgerCursors: Map<string, number>;
  walletsLeft: Map<string, { clientId: string; currency: string }>;
  walletsDone: Map<string, { clientId: string; currency: string }>;
  next: Pick<Checkpoint, "orders" | "codes" | "auditId" | "movesAt">;
}

const walletKey = (clientId: string, currency: string) => `${clientId}\u0000${currency}`;

/** The wallet an audit row's target names (`wallet:<client>:<currency>[:<generation>]`), or null. */
function targetWallet(target: string): { clientId: string; currency: string; generation: number } | null {
  const match = /^wallet:(.+):([A-Z]{3})(?::(\d+))?$/.exec(target);
  return match === null
    ? null
    : { clientId: match[1]!, currency: match[2]!, generation: match[3] === undefined ? 0 : Number(match[3]) };
}

/** The registry rows of these wallets, by walletKey. */
async function registryOf(
  db: D1Database,
  wallets: readonly { clientId: string; currency: string }[],
): Promise<Map<string, RegisteredWallet>> {
  const found = new Map<string, RegisteredWallet>();
  for (let start = 0; start < wallets.length; start += 45) {
    const chunk = wallets.slice(start, start + 45);
    const pairs = `VALUES ${chunk.map((_, at) => `(?${2 * at + 1}, ?${2 * at + 2})`).join(", ")}`;
    const { results } = await registeredWalletsStatement(
      db,
      pairs,
      chunk.flatMap((wallet) => [wallet.clientId, wallet.currency]),
    ).all<{ client_id: string }>();
    registeredWallets(results).forEach((wallet, at) =>
      found.set(walletKey(results[at]!.client_id, wallet.currency), wallet),
    );
  }
  return found;
}

/**
 * The seq after which the object's ledger holds nothing older than `since` (0: read it all). A ledger is
 * appended in time order, so a galloping then halving search finds it in a few one-entry reads.
 */
async function seqBefore(wallet: DurableObjectStub<WalletObject>, since: number): Promise<number> {
  const olderAt = async (seq: number): Promise<boolean> => {
    const [entry] = (await wallet.entries(seq - 1, 1)) as LedgerEntry[];
    return entry !== undefined && entry.createdAt < since;
  };
  if (since <= 0 || !(await olderAt(1))) return 0;
  let low = 1;
  let high = 2;
  while (await olderAt(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await olderAt(middle)) low = middle;
    else high = middle;
  }
  return low;
}

async function inBatches<T, R>(items: readonly T[], ask: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let start = 0; start < items.length; start += ASK_AT_ONCE)
    answers.push(...(await Promise.all(items.slice(start, start + ASK_AT_ONCE).map(ask))));
  return answers;
}

/** What a run has found: each subject checked, with what its checks found (none: it is in order). */
class Findings {
  readonly bySubject = new Map<string, Finding[]>();
  /** The ledger entries the run has checked (their subjects), found in order or not. */
  readonly entriesChecked = new Set<string>();

  /** The subject was checked: what an earlier run found of it is replaced, by nothing if nothing is found. */
  checked(name: string): Finding[] {
    if (!this.bySubject.has(name)) this.bySubject.set(name, []);
    return this.bySubject.get(name)!;
  }

  /** Reports the mismatches one check finds of one subject. */
  of(name: string, check: CheckName, orderId: string | null, clientId: string | null, currency: string | null) {
    return (problem: string) =>
      this.checked(name).push({
        subject: name,
        check,
        orderId,
        clientId,
        problem,
        lookAt: lookAt(orderId, clientId, currency),
      });
  }
}

/** What the feeds hold after the checkpoint, within the budget. */
interface Feeds {
  rows: IndexRow[];
  codes: SoldCode[];
  audits: PostingAudit[];
  moved: { clientId: string; currency: string; movedAt: number }[];
  /** False when a feed held more than the budget lets a run read. */
  complete: boolean;
}

async function readFeeds(db: D1Database, span: Span): Promise<Feeds> {
  const { budget } = span;
  const rows = await indexRowsCreatedAfter(db, span.orders, span.ordersTo, budget.orders);
  const codes = await codesSoldAfter(db, span.codes, span.to, budget.codes);
  const audits = await postingAuditsAfter(db, span.auditId, span.to, budget.audits);
  const moved = await movedWalletsBetween(db, span.movesAt, span.to, budget.moves);
  const complete =
    rows.length < budget.orders &&
    codes.length < budget.codes &&
    audits.length < budget.audits &&
    moved.length < budget.moves;
  return { rows, codes, audits, moved, complete };
}

/** Who named an order to the run: an index row (its client), a ledger (its wallet), or a code sold to it. */
interface Naming {
  clientId?: string;
  currency?: string;
  code?: SoldCode;
  /** The client whose index row named it. */
  indexedFor?: string;
  /** Every ledger entry the run read that names it: its wallet and its subject (`entry:<object>:<seq>`). */
  entries?: { clientId: string; currency: string; subject: string }[];
}

/** The orders a run checks (by id, with who named them), and the index rows it has read of them. */
interface NamedOrders {
  orders: Map<string, Naming>;
  rows: Map<string, IndexRow>;
}

/**
 * The orders left over and those with a mismatch standing come first, so that a budget of orders checked
 * overflows with new orders (left over in their turn, with their wait starting), never with those waiting.
 */
function ordersNamed(feeds: Feeds, span: Span): NamedOrders {
  const orders = new Map<string, Naming>();
  const rows = new Map<string, IndexRow>();
  for (const orderId of [...span.deferred.keys(), ...span.recheck.orders]) orders.set(orderId, {});
  for (const row of feeds.rows) {
    orders.set(row.id, { indexedFor: row.clientId });
    rows.set(row.id, row);
  }
  for (const code of feeds.codes) if (!orders.has(code.orderId)) orders.set(code.orderId, { code });
  return { orders, rows };
}

/** The wallets whose money moved: named by an index row, an audited posting, a move, or a mismatch standing. */
function walletsNamed(feeds: Feeds, span: Span): Map<string, { clientId: string; currency: string }> {
  const wallets = new Map<string, { clientId: string; currency: string }>();
  const name = (clientId: string, currency: string) =>
    wallets.set(walletKey(clientId, currency), { clientId, currency });
  for (const row of feeds.rows) name(row.clientId, row.wallet);
  for (const audit of feeds.audits) {
    const wallet = targetWallet(audit.target);
    if (wallet !== null) name(wallet.clientId, wallet.currency);
  }
  for (const wallet of [...feeds.moved, ...span.recheck.wallets, ...span.walletsLeft])
    name(wallet.clientId, wallet.currency);
  for (const entry of span.recheck.entries) {
    const parsed = entryOf(entry);
    if (parsed !== null) name(parsed.clientId, parsed.currency);
  }
  return wallets;
}

/** The wallet object and seq a standing entry's subject names (`entry:<client>:<currency>[:<generation>:<region>]:<seq>`). */
function entryOf(entry: StandingEntry): { clientId: string; currency: string; generation: number; seq: number } | null {
  const prefix = `entry:${entry.clientId}:`;
  if (!entry.subject.startsWith(prefix)) return null;
  const match = /^([A-Z]{3})(?::(\d+):[^:]+)?:(\d+)$/.exec(entry.subject.slice(prefix.length));
  return match === null
    ? null
    : {
        clientId: entry.clientId,
        currency: match[1]!,
        generation: match[2] === undefined ? 0 : Number(match[2]),
        seq: Number(match[3]),
      };
}

/**
 * The ledger entries with a mismatch standing (a posting without its audit row, a transfer without its
 * pair), checked again, so that one put right (a move finished late, a restored audit row) is cleared: the
 * ledger's cursor has moved past them. One the ledger no longer holds stays as it was.
 */
async function recheckEntries(
  env: ReconcileEnv,
  span: Span,
  registry: Map<string, RegisteredWallet>,
  findings: Findings,
  checked: Checked,
): Promise<void> {
  for (const standing of span.recheck.entries) {
    const parsed = entryOf(standing);
    if (parsed === null || findings.entriesChecked.has(standing.subject)) continue;
    const { clientId, currency } = parsed;
    const wallet = registry.get(walletKey(clientId, currency));
    const placements = wallet === undefined ? [] : historyOf(wallet);
    const at = placements.findIndex((placement) => placement.generation === parsed.generation);
    if (at < 0) continue;
    const object = walletObjectAt(env, clientId, currency, placements, at);
    const [entry] = (await object.stub.entries(parsed.seq - 1, 1)) as LedgerEntry[];
    if (entry === undefined || entry.seq !== parsed.seq) continue;
    findings.checked(standing.subject);
    await checkEntry(env, object, entry, { entries: null }, findings, checked);
  }
}

/**
 * The records of the orders left over, read first (and not again for their checks): the wallet of each that
 * changed since it was left over is read too, as its own change would have named it to a feed by change
 * time (its charge, its refund, and whatever else its wallet's ledger holds since).
 */
async function leftOverRecords(
  env: ReconcileEnv,
  span: Span,
  wallets: Map<string, { clientId: string; currency: string }>,
): Promise<Map<string, OrderRecord | null>> {
  const ids = [...span.deferred.keys()].slice(0, span.budget.checkedOrders);
  const records = new Map<string, OrderRecord | null>();
  (await inBatches(ids, (orderId) => orderRecordById(env.ORDERS, orderId))).forEach((record, at) => {
    records.set(ids[at]!, record);
    if (record !== null && record.modifiedAt > span.deferred.get(ids[at]!)!)
      wallets.set(walletKey(record.clientId, record.wallet), { clientId: record.clientId, currency: record.wallet });
  });
  return records;
}

/** One pass over a span: every check, nothing written. */
async function check(env: ReconcileEnv, span: Span): Promise<Outcome> {
  const findings = new Findings();
  const checked = noneChecked();
  const feeds = await readFeeds(env.DB, span);
  checked.soldCodes = feeds.codes.length;
  const named = ordersNamed(feeds, span);
  const wallets = walletsNamed(feeds, span);
  const records = await leftOverRecords(env, span, wallets);
  const registry = await registryOf(env.DB, [...wallets.values()]);
  // 1. The ledgers of the wallets that moved money; the orders their entries name join the orders checked.
  const ledgers = await checkLedgers(env, span, wallets, registry, named.orders, findings, checked);
  await recheckEntries(env, span, registry, findings, checked);
  // 2. Every audit row of a posting with its ledger entry.
  await checkAudits(env, feeds.audits, registry, findings, checked);
  // 3. The orders: each order object, its index row, its ledger lines and its codes.
  const judged = await checkOrders(env, span, named, registry, records, findings, checked);

  const last = <T>(items: readonly T[]) => items[items.length - 1];
  const lastRow = last(feeds.rows);
  const lastCode = last(feeds.codes);
  return {
    checked,
    complete: feeds.complete && ledgers.complete && judged.complete,
    findings: findings.bySubject,
    ...judged.deferral,
    ledgerCursors: ledgers.cursors,
    walletsLeft: ledgers.left,
    walletsDone: ledgers.done,
    next: {
      orders: lastRow === undefined ? span.orders : { createdAt: lastRow.createdAt, id: lastRow.id },
      codes: lastCode === undefined ? span.codes : { soldAt: lastCode.soldAt ?? 0, id: lastCode.id },
      auditId: last(feeds.audits)?.id ?? span.auditId,
      movesAt: last(feeds.moved)?.movedAt ?? span.movesAt,
    },
  };
}

/**
 * Every object each named wallet has been: every posting with its audit row, every transfer paired, every
 * object's balance its ledger's sum, and the balances across its objects their ledgers' sum. Reads each
 * ledger from its cursor, within the budget of pages; returns where each cursor may move.
 */
async function checkLedgers(
  env: ReconcileEnv,
  span: Span,
  named: Map<string, { clientId: string; currency: string }>,
  registry: Map<string, RegisteredWallet>,
  orders: Map<string, Naming>,
  findings: Findings,
  checked: Checked,
): Promise<{
  cursors: Map<string, number>;
  complete: boolean;
  left: Map<string, { clientId: string; currency: string }>;
  done: Map<string, { clientId: string; currency: string }>;
}> {
  const cursors = new Map<string, number>();
  const left = new Map<string, { clientId: string; currency: string }>();
  const done = new Map<string, { clientId: string; currency: string }>();
  const pages = { left: span.budget.ledgerPages, complete: true };
  for (const [key, { clientId, currency }] of named) {
    const walletSubject = `wallet:${clientId}:${currency}`;
    const mismatch = findings.of(walletSubject, "balance_matches_ledger", null, clientId, currency);
    findings.checked(walletSubject);
    const wallet = registry.get(key);
    if (wallet === undefined) continue;
    checked.wallets += 1;
    const placements = historyOf(wallet);
    const current = placementOf(wallet);
    let balances = new Money(0);
    let sums = new Money(0);
    let whole = true;
    for (const [at, placement] of placements.entries()) {
      checked.walletObjects += 1;
      const object = walletObjectAt(env, clientId, currency, placements, at);
      const { cursor, toEnd } = await readLedger(env, span, object, pages, orders, findings, checked);
      if (cursor > 0) cursors.set(object.name, cursor);
      whole &&= toEnd;
      const { balance, ledgerSum } = await object.stub.audit();
      balances = balances.plus(balance);
      sums = sums.plus(ledgerSum);
      if (!new Money(balance).equals(ledgerSum))
        mismatch(`${object.name}: the balance is ${balance}, its ledger sums to ${new Money(ledgerSum).toFixed()}`);
      else if (placement.generation < current.generation && !new Money(balance).isZero())
        mismatch(`${object.name}: the wallet moved on, yet this object holds ${balance}`);
    }
    if (!balances.equals(sums))
      mismatch(`across its objects the balance is ${balances.toFixed()}, the ledgers sum to ${sums.toFixed()}`);
    (whole ? done : left).set(key, { clientId, currency });
  }
  return { cursors, complete: pages.complete, left, done };
}

/** One object a wallet has been: its place in the wallet's history, its name and its stub. */
interface WalletObjectAt {
  clientId: string;
  currency: string;
  placements: ReturnType<typeof historyOf>;
  at: number;
  name: string;
  stub: DurableObjectStub<WalletObject>;
}

function walletObjectAt(
  env: ReconcileEnv,
  clientId: string,
  currency: string,
  placements: ReturnType<typeof historyOf>,
  at: number,
): WalletObjectAt {
  const placement = placements[at]!;
  return {
    clientId,
    currency,
    placements,
    at,
    name: walletName(clientId, currency, placement.generation, placement.region),
    stub: placedWallet(env, clientId, currency, placement),
  };
}

/**
 * One wallet object's ledger from its cursor, a page at a time while the budget lasts: the orders its
 * entries name join `orders`, and each settled entry is checked. Returns the seq the cursor may move to: past
 * settled entries only, so that a later run reads the rest again.
 */
async function readLedger(
  env: ReconcileEnv,
  span: Span,
  object: WalletObjectAt,
  pages: { left: number; complete: boolean },
  orders: Map<string, Naming>,
  findings: Findings,
  checked: Checked,
): Promise<{ cursor: number; toEnd: boolean }> {
  const { clientId, currency } = object;
  const audited: { entries: Awaited<ReturnType<typeof auditedEntries>> | null } = { entries: null };
  let after = await span.ledgerFrom(object.name, object.stub);
  let cursor = after;
  let settledSoFar = true;
  // Each object's first page is read whatever the budget (the wallets named are bounded by the feeds'
  // budgets): only the pages after it are counted, so a run that stops for them says it did not finish.
  for (let first = true; first || pages.left > 0; first = false) {
    if (!first) pages.left -= 1;
    const page = (await object.stub.entries(after, LEDGER_PAGE)) as LedgerEntry[];
    for (const entry of page) {
      checked.ledgerEntries += 1;
      const settled = entry.createdAt <= span.settledBy;
      if (settled && settledSoFar) cursor = entry.seq;
      else settledSoFar = false;
      if (entry.orderId !== null) nameByEntry(orders, entry.orderId, object, entry.seq);
      if (settled) await checkEntry(env, object, entry, audited, findings, checked);
    }
    if (page.length < LEDGER_PAGE) return { cursor, toEnd: settledSoFar };
    after = page[page.length - 1]!.seq;
  }
  pages.complete = false;
  return { cursor, toEnd: false };
}

/** The order a ledger entry names joins the orders checked (unless already named), with the entry noted. */
function nameByEntry(orders: Map<string, Naming>, orderId: string, object: WalletObjectAt, seq: number): void {
  const { clientId, currency } = object;
  const naming = orders.get(orderId) ?? {};
  naming.clientId ??= clientId;
  naming.currency ??= currency;
  orders.set(orderId, naming);
  (naming.entries ??= []).push({ clientId, currency, subject: `entry:${object.name}:${seq}` });
}

/** A settled ledger entry that names no order: a posting has its audit row, a transfer its pair. */
async function checkEntry(
  env: ReconcileEnv,
  object: WalletObjectAt,
  entry: LedgerEntry,
  audited: { entries: Awaited<ReturnType<typeof auditedEntries>> | null },
  findings: Findings,
  checked: Checked,
): Promise<void> {
  const { clientId, currency, name, placements, at } = object;
  const entrySubject = `entry:${name}:${entry.seq}`;
  findings.entriesChecked.add(entrySubject);
  if ((entry.kind === "top_up" || entry.kind === "adjustment") && !entry.key.startsWith(SANDBOX_TOP_UP)) {
    audited.entries ??= await auditedEntries(env.DB, walletTarget(clientId, currency, placements[at]!), object.stub);
    if (entry.seq > audited.entries.restoredThrough && !audited.entries.keys.has(`wallet.${entry.kind}:${entry.seq}`))
      findings.of(
        entrySubject,
        "posting_audited",
        null,
        clientId,
        currency,
      )(`${entry.kind} #${entry.seq} of ${entry.amount} in ${name} has no audit row`);
  }
  if (entry.kind !== "move_out" && entry.kind !== "move_in") return;
  checked.transfers += 1;
  const other = placements[entry.kind === "move_out" ? at + 1 : at - 1];
  const pairMismatch = findings.of(entrySubject, "transfer_paired", null, clientId, currency);
  if (other === undefined) {
    pairMismatch(`${entry.kind} ${entry.key} in ${name}: the registry lists no object on its other side`);
    return;
  }
  const otherName = walletName(clientId, currency, other.generation, other.region);
  const pair = (await placedWallet(env, clientId, currency, other).entry(entry.key)) as LedgerEntry | null;
  const problem = transferProblem(entry, pair, otherName);
  if (problem !== null) pairMismatch(problem);
}

/** Every audit row of a posting with its ledger entry: the same kind and amount at the seq it names. */
async function checkAudits(
  env: ReconcileEnv,
  audits: readonly PostingAudit[],
  registry: Map<string, RegisteredWallet>,
  findings: Findings,
  checked: Checked,
): Promise<void> {
  const more = await registryOf(
    env.DB,
    audits.flatMap((audit) => {
      const wallet = targetWallet(audit.target);
      return wallet === null || registry.has(walletKey(wallet.clientId, wallet.currency)) ? [] : [wallet];
    }),
  );
  for (const audit of audits) {
    findings.checked(`audit:${audit.id}`);
    await checkAudit(env, audit, registry, more, findings);
    checked.postingAudits += 1;
  }
}

/** What a run reads of the orders it checks, beside their index rows. */
interface OrderEvidence {
  records: Map<string, OrderRecord | null>;
  /** The codes sold to each order, by order id. */
  sold: Map<string, CodeByPin[]>;
  /** The codes an order's redeem holds but that are not sold to it, by SKU and pin. */
  byPin: Awaited<ReturnType<typeof codesByPins>>;
  /** Each order's lines in every object its wallet has been. */
  money: Map<string, OrderMoney>;
}

const redeemOf = (record: OrderRecord) =>
  record.lines
    .filter((line) => line.product.supplier === "inventory")
    .flatMap((line) => (line.redeem?.pins ?? []).map((pin) => ({ sku: line.sku, pin })));

async function orderEvidence(
  env: ReconcileEnv,
  ids: readonly string[],
  rows: Map<string, IndexRow>,
  registry: Map<string, RegisteredWallet>,
  read: Map<string, OrderRecord | null>,
): Promise<OrderEvidence> {
  const records = new Map<string, OrderRecord | null>();
  const unread = ids.filter((orderId) => !read.has(orderId));
  (await inBatches(unread, (orderId) => orderRecordById(env.ORDERS, orderId))).forEach((record, at) =>
    records.set(unread[at]!, record),
  );
  for (const orderId of ids) if (read.has(orderId)) records.set(orderId, read.get(orderId)!);
  const known = [...records.values()].filter((record): record is OrderRecord => record !== null);
  // The rows of orders no feed row named, found by their reference (the index's key for a client).
  const byClient = new Map<string, string[]>();
  for (const record of known)
    if (!rows.has(record.id))
      byClient.set(record.clientId, [...(byClient.get(record.clientId) ?? []), record.reference]);
  for (const [clientId, references] of byClient)
    for (const row of (await indexRowsByReference(env.DB, clientId, references)).values()) rows.set(row.id, row);
  const wallets = await registryOf(
    env.DB,
    known
      .filter((record) => !registry.has(walletKey(record.clientId, record.wallet)))
      .map((record) => ({ clientId: record.clientId, currency: record.wallet })),
  );
  for (const [key, wallet] of registry) wallets.set(key, wallet);
  const sold = new Map<string, CodeByPin[]>();
  for (const code of await codesSoldTo(
    env.DB,
    known.map((record) => record.id),
  ))
    sold.set(code.orderId, [...(sold.get(code.orderId) ?? []), { ...code, status: "sold" }]);
  const lostPins = known.flatMap((record) => {
    const own = new Set((sold.get(record.id) ?? []).map((code) => `${code.sku}\u0000${code.pin}`));
    return redeemOf(record).filter((pin) => !own.has(`${pin.sku}\u0000${pin.pin}`));
  });
  const money = new Map<string, OrderMoney>();
  // A charge may have met a moved wallet: every object the wallet has been is asked, a few orders at once.
  await inBatches(known, async (record) => {
    let lines: OrderMoney = emptyMoney(record.clientId, record.wallet);
    const wallet = wallets.get(walletKey(record.clientId, record.wallet));
    for (const placement of wallet === undefined ? [] : historyOf(wallet))
      for (const entry of (await placedWallet(env, record.clientId, record.wallet, placement).orderEntries(
        record.id,
      )) as LedgerEntry[])
        lines = addLine(lines, entry.kind, entry.amount, entry.createdAt, true);
    money.set(record.id, lines);
  });
  return { records, sold, byPin: await codesByPins(env.DB, lostPins), money };
}

/** Which orders a run leaves to the next (and since when), which it starts the clock of again, which it lets go. */
interface Deferral {
  defer: Map<string, number>;
  restart: Set<string>;
  undefer: Set<string>;
}

/**
 * The orders named, up to the budget (the rest are left to the next run): each checked against its index
 * row, its ledger lines and its codes. An order still changing is checked in full once it has settled, or
 * once it has waited the bound; an order still open stays among the deferred until it ends, so that what it
 * does later is checked too, though the feed of orders (by creation) has passed it.
 */
async function checkOrders(
  env: ReconcileEnv,
  span: Span,
  named: NamedOrders,
  registry: Map<string, RegisteredWallet>,
  read: Map<string, OrderRecord | null>,
  findings: Findings,
  checked: Checked,
): Promise<{ deferral: Deferral; complete: boolean }> {
  const all = [...named.orders.keys()];
  const ids = all.slice(0, span.budget.checkedOrders);
  const overflow = all.slice(span.budget.checkedOrders);
  const evidence = await orderEvidence(env, ids, named.rows, registry, read);
  const deferral: Deferral = {
    defer: new Map(overflow.map((orderId) => [orderId, span.deferred.get(orderId) ?? span.now])),
    restart: new Set(),
    undefer: new Set(),
  };
  checked.leftToNextRun += overflow.length;
  const standing = new Set(span.recheck.orders);
  for (const orderId of ids) {
    const record = evidence.records.get(orderId)!;
    const naming = named.orders.get(orderId)!;
    if (record === null) {
      deferral.undefer.add(orderId);
      // Checked again by its id alone, an order no object holds is as it was found (by whichever ledger,
      // code or row named it then): its mismatch stands as found.
      if (standing.has(orderId) && Object.keys(naming).length === 0) continue;
      findings.checked(`order:${orderId}`);
      unknownOrder(orderId, naming, findings);
      continue;
    }
    findings.checked(`order:${orderId}`);
    checked.orders += 1;
    const money = evidence.money.get(orderId) ?? emptyMoney(record.clientId, record.wallet);
    const settled = defer(span, record, money, deferral, checked);
    judgeOrder(record, naming, named.rows.get(orderId), money, evidence, settled, findings);
  }
  return { deferral, complete: overflow.length === 0 };
}

/** An order a ledger or a code names, which no order object holds. */
function unknownOrder(orderId: string, naming: Naming, findings: Findings): void {
  const orderSubject = `order:${orderId}`;
  if (naming.code !== undefined)
    findings.of(
      orderSubject,
      "unknown_order",
      null,
      null,
      null,
    )(`code #${naming.code.id} (${naming.code.sku}) is sold to ${orderId}, which is no order of this service`);
  else if (naming.clientId !== undefined)
    findings.of(
      orderSubject,
      "unknown_order",
      orderId,
      naming.clientId,
      naming.currency!,
    )(`the ${naming.clientId} ${naming.currency} ledger names ${orderId}, which is no order of this service`);
  else if (naming.indexedFor !== undefined)
    findings.of(
      orderSubject,
      "unknown_order",
      orderId,
      naming.indexedFor,
      null,
    )(`the index holds a row of ${naming.indexedFor} for ${orderId}, which is no order of this service`);
  // Named by id alone (left over, or with a mismatch standing): who named it is not known any more, but no
  // order object holds it, which is a mismatch all the same (and keeps one standing until put right).
  else
    findings.of(
      orderSubject,
      "unknown_order",
      orderId,
      null,
      null,
    )(`${orderId} was left over or has a mismatch standing, and no order object holds it`);
}

/**
 * Where the order goes after this run: kept while it is open or still changing, with its clock started
 * again once it has been checked past the bound; let go once it has ended and settled. Returns whether it
 * has settled (checked in full).
 */
function defer(span: Span, record: OrderRecord, money: OrderMoney, deferral: Deferral, checked: Checked): boolean {
  const changing = record.modifiedAt > span.settledBy || money.lastAt > span.settledBy;
  const open = !hasEnded(record.state);
  const since = span.deferred.get(record.id);
  const due = (changing || open) && since !== undefined && pastBound(since, span.now);
  if (due) checked.ordersPastBound += 1;
  const settled = !changing || due;
  if (!open && settled) deferral.undefer.add(record.id);
  else if (due) deferral.restart.add(record.id);
  else {
    deferral.defer.set(record.id, since ?? span.now);
    checked.leftToNextRun += 1;
  }
  return settled;
}

/** One order against its index row, its ledger lines and its codes. */
function judgeOrder(
  record: OrderRecord,
  naming: Naming,
  row: IndexRow | undefined,
  money: OrderMoney,
  evidence: OrderEvidence,
  settled: boolean,
  findings: Findings,
): void {
  const { id: orderId, clientId, wallet: currency } = record;
  const mismatch = (check: CheckName) => findings.of(`order:${orderId}`, check, orderId, clientId, currency);
  // Filed under the entry, which a later run does not read again: a ledger only grows, so this cannot be
  // put right, and a check of the order by its id alone must not clear it.
  for (const entry of naming.entries ?? [])
    if (entry.clientId !== clientId || entry.currency !== currency)
      findings.of(
        entry.subject,
        "ledger_matches_order",
        orderId,
        entry.clientId,
        entry.currency,
      )(`the ${entry.clientId} ${entry.currency} ledger names an order of ${clientId} paid in ${currency}`);
  // Checked whatever the order is doing: a charge lands before an order says it was charged or delivers.
  const delivery = deliveryProblem(record.state, record.lines, money);
  if (delivery !== null) mismatch("charge_for_delivery")(delivery);
  const sold = evidence.sold.get(orderId) ?? [];
  for (const problem of redeemProblems(orderId, redeemOf(record), sold, evidence.byPin, settled))
    mismatch("codes_match_redeem")(problem);
  const own = indexRowOf(record);
  // The row of this very version of the order is compared at once; an older one may only lag.
  if (row !== undefined && (settled || row.modifiedAt >= record.modifiedAt))
    for (const problem of indexProblems(row, own)) mismatch("index_matches_order")(problem);
  else if (row === undefined && settled)
    mismatch("index_matches_order")(`the order is ${record.state} but has no row in the index`);
  if (settled && record.state !== "created" && record.state !== "confirmed")
    for (const problem of ledgerProblems(own, money)) mismatch("ledger_matches_order")(problem);
}

/** One audit row of a posting against its ledger entry. */
async function checkAudit(
  env: ReconcileEnv,
  audit: PostingAudit,
  registry: Map<string, RegisteredWallet>,
  more: Map<string, RegisteredWallet>,
  findings: Findings,
): Promise<void> {
  const named = targetWallet(audit.target);
  const auditSubject = `audit:${audit.id}`;
  const mismatch = findings.of(
    auditSubject,
    "audit_has_posting",
    null,
    named?.clientId ?? null,
    named?.currency ?? null,
  );
  if (named === null) {
    mismatch(`audit row #${audit.id} (${audit.action}) names ${audit.target}, which is no wallet object`);
    return;
  }
  const key = walletKey(named.clientId, named.currency);
  const wallet = registry.get(key) ?? more.get(key);
  const placement =
    wallet === undefined ? undefined : historyOf(wallet).find((one) => one.generation === named.generation);
  if (placement === undefined || audit.seq === null) {
    mismatch(`audit row #${audit.id} (${audit.action}) names ${audit.target}, which the registry does not hold`);
    return;
  }
  const [entry] = (await placedWallet(env, named.clientId, named.currency, placement).entries(
    audit.seq - 1,
    1,
  )) as LedgerEntry[];
  if (entry === undefined || entry.seq !== audit.seq)
    mismatch(
      `audit row #${audit.id} (${audit.action} of ${audit.amount}) names entry #${audit.seq}, which the ledger does not hold`,
    );
  else if (
    `wallet.${entry.kind}` !== audit.action ||
    audit.amount === null ||
    !new Money(audit.amount).equals(entry.amount)
  )
    mismatch(
      `audit row #${audit.id} says ${audit.action} of ${audit.amount}, entry #${entry.seq} is ${entry.kind} of ${entry.amount}`,
    );
}

function reconciliationOf(outcome: Outcome, from: number, to: number, alerts: string[]): Reconciliation {
  const mismatches = [...outcome.findings.values()].flat().map(({ subject: _, ...mismatch }) => mismatch);
  return { createdFrom: from, createdTo: to, complete: outcome.complete, checked: outcome.checked, mismatches, alerts };
}

export interface Period {
  createdFrom: number;
  createdTo: number;
  /** Seconds; DEFAULT_GRACE_SECONDS unless given. */
  grace?: number;
}

/**
 * The checks over what happened in a period (orders created, codes sold, postings audited and wallets moved
 * from `createdFrom` to `createdTo`), bounded by the budget: what GET /admin/reconciliation and a viewer's
 * run answer. It writes nothing: no checkpoint, no stored run, no standing mismatch.
 */
export async function reconcile(
  env: ReconcileEnv,
  period: Period,
  now = Date.now(),
  budget: Budget = BUDGET,
): Promise<Reconciliation> {
  const { createdFrom, createdTo } = period;
  const outcome = await check(env, {
    orders: { createdAt: createdFrom - 1, id: "~" },
    ordersTo: createdTo,
    codes: { soldAt: createdFrom - 1, id: Number.MAX_SAFE_INTEGER },
    auditId: await lastAuditIdBefore(env.DB, createdFrom),
    movesAt: createdFrom - 1,
    to: createdTo,
    now,
    settledBy: now - (period.grace ?? DEFAULT_GRACE_SECONDS) * 1000,
    deferred: new Map(),
    walletsLeft: [],
    recheck: { orders: [], wallets: [], entries: [] },
    ledgerFrom: (_, wallet) => seqBefore(wallet, createdFrom),
    budget,
  });
  return reconciliationOf(outcome, createdFrom, createdTo, []);
}

/**
 * A run from the checkpoint, as the scheduled job (hourly) and an operator's run from the console make it:
 * the changes since the last run, within the budget, and the orders left over; then, in D1 batches, what
 * it found (replacing what earlier runs found of the same subjects), the orders it leaves over, the ledger
 * cursors, the checkpoint moved on, and the run stored for the Needs attention list. Every mismatch and
 * alert is one structured log line, and the run one more. A run that dies leaves the checkpoint where it
 * was: the next one does its work again and says that this one did not finish.
 */
export async function runAndStore(
  env: ReconcileEnv,
  now = Date.now(),
  { budget = BUDGET, graceSeconds = DEFAULT_GRACE_SECONDS }: { budget?: Budget; graceSeconds?: number } = {},
): Promise<Reconciliation> {
  const db = env.DB;
  const checkpoint = await loadCheckpoint(db);
  const alerts: string[] = [];
  const unfinished = unfinishedAlert(checkpoint.startedAt, checkpoint.finishedAt);
  if (unfinished !== null) alerts.push(unfinished);
  await markStarted(db, now);
  const deferred = new Map(
    (await deferredOrders(db, budget.deferred)).map((order) => [order.orderId, order.since] as const),
  );
  let cursors: Map<string, number> | null = null;
  const ordersTo = now - INDEX_SETTLED_MS;
  const outcome = await check(env, {
    orders: checkpoint.orders,
    ordersTo,
    codes: checkpoint.codes,
    auditId: checkpoint.auditId,
    movesAt: checkpoint.movesAt,
    to: now,
    now,
    settledBy: now - graceSeconds * 1000,
    deferred,
    walletsLeft: await walletsLeftOver(db, budget.deferred),
    recheck: await standingSubjects(db, budget.standing),
    ledgerFrom: async (name) => {
      cursors ??= new Map();
      if (!cursors.has(name)) for (const [wallet, seq] of await ledgerCursorsOf(db, [name])) cursors.set(wallet, seq);
      return cursors.get(name) ?? 0;
    },
    budget,
  });
  await storeOutcome(db, outcome, now);

  // Left to the next run: the orders still open or changing, and the orders beyond the budget; those left
  // over, or yet to be read, since more than the bound ago wait past it.
  const overdueBy = now - DEFERRAL_BOUND_MS - RUN_SLACK_MS;
  const leftOver = await deferredCount(db, overdueBy);
  const unread = outcome.complete
    ? { left: 0, overdue: 0 }
    : await indexRowsCreatedCount(db, outcome.next.orders, ordersTo, overdueBy);
  const left = leftOver.left + unread.left;
  outcome.checked.leftToNextRun = left;
  const rising = left > checkpoint.leftToNext && left > 0 ? checkpoint.leftRising + 1 : 0;
  for (const alert of [risingAlert(rising, left), overdueAlert(leftOver.overdue + unread.overdue)])
    if (alert !== null) alerts.push(alert);
  const run = reconciliationOf(outcome, checkpoint.orders.createdAt, now, alerts);
  const standing = await standingFindings(db, STORED_MISMATCHES);
  await db.batch([
    checkpointStatement(db, { ...checkpoint, ...outcome.next, finishedAt: now, leftToNext: left, leftRising: rising }),
    saveRunStatement(db, now, run, standing),
  ]);
  logRun(run, alerts, standing.count);
  return run;
}

/** What a run found and leaves over, in D1 batches: before the checkpoint moves, so a run that dies here loses nothing. */
async function storeOutcome(db: D1Database, outcome: Outcome, now: number): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  for (const [subject, found] of outcome.findings) statements.push(...findingStatements(db, subject, found, now));
  for (const [orderId, since] of outcome.defer) statements.push(deferStatement(db, orderId, since));
  for (const orderId of outcome.restart) statements.push(restartDeferralStatement(db, orderId, now));
  for (const orderId of outcome.undefer) statements.push(undeferStatement(db, orderId));
  for (const [wallet, seq] of outcome.ledgerCursors) statements.push(ledgerCursorStatement(db, wallet, seq));
  for (const wallet of outcome.walletsLeft.values()) statements.push(walletLeftStatement(db, wallet, now));
  for (const wallet of outcome.walletsDone.values()) statements.push(walletDoneStatement(db, wallet));
  for (let start = 0; start < statements.length; start += 200) await db.batch(statements.slice(start, start + 200));
}

function logRun(run: Reconciliation, alerts: readonly string[], standing: number): void {
  for (const mismatch of run.mismatches)
    log("error", "reconciliation mismatch", { component: "reconciliation", ...mismatch });
  for (const alert of alerts) log("error", "reconciliation alert", { component: "reconciliation", alert });
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
