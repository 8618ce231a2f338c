/**
 * The reconciliation (its rules in reconciliation-rules.ts, its tables in reconciliation-store.ts): the
 * order index (written by orders), the wallets' ledgers (written by wallets), the codes table and the audit
 * log, compared so that each catches the others. A run follows activity, never walking idle wallets or
 * orders: it reads what changed since its checkpoint in four feeds (index rows by modified_at, codes by
 * sold_at, the audit log's postings by id, the registry's moves by moved_at), checks every order and wallet
 * they name, and moves the checkpoint past what it read; its work is bounded by budgets, and the next run
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
  indexRowOf,
  indexRowsByReference,
  indexRowsChangedAfter,
  indexRowsChangedCount,
  type ChangedCursor,
  type IndexRow,
} from "../order-index/order-index-store";
import { orderRecordById } from "../orders/order-lookup";
import type { OrderRecord } from "../orders/order-record";
import {
  addLine,
  DEFAULT_GRACE_SECONDS,
  DEFERRAL_BOUND_MS,
  deliveryProblem,
  emptyMoney,
  indexProblems,
  ledgerProblems,
  lookAt,
  noneChecked,
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
  saveRunStatement,
  standingFindings,
  standingSubjects,
  takeDemand,
  undeferStatement,
  STORED_MISMATCHES,
  type Checkpoint,
  type Finding,
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
  /** Ledger pages (of LEDGER_PAGE entries) read, all wallet objects together. */
  ledgerPages: number;
  /** Orders checked, however they were named: the rest are left to the next run. */
  checkedOrders: number;
}

/**
 * A run asks two objects per order it checks (its record, its lines in each object of its wallet), and
 * about three per wallet it reads (a ledger page, its balance, a transfer's other side): with these
 * budgets at most about 1,500 × 2 + 1,650 × 3 ≈ 8,000 calls, under the 10,000 subrequests one invocation
 * may make. A run keeps up with about 1,000 changed orders an hour; beyond it each run leaves the rest to
 * the next, and the alert line says when that keeps growing.
 */
export const BUDGET: Budget = {
  orders: 1_000,
  codes: 1_000,
  audits: 300,
  moves: 50,
  deferred: 300,
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
  orders: ChangedCursor;
  codes: SoldCursor;
  auditId: number;
  movesAt: number;
  to: number;
  now: number;
  settledBy: number;
  /** Orders left over by earlier runs, and since when. */
  deferred: Map<string, number>;
  /** Orders and wallets with a mismatch standing: checked again, so that one put right is cleared. */
  recheck: { orders: string[]; wallets: { clientId: string; currency: string }[] };
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
  undefer: Set<string>;
  ledgerCursors: Map<string, number>;
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

/** One pass over a span: every check, nothing written. */
async function check(env: ReconcileEnv, span: Span): Promise<Outcome> {
  const { budget, settledBy, now } = span;
  const checked = noneChecked();
  const findings = new Map<string, Finding[]>();
  const subject = (name: string) => {
    if (!findings.has(name)) findings.set(name, []);
    return findings.get(name)!;
  };
  const found =
    (name: string, check: CheckName, orderId: string | null, clientId: string | null, currency: string | null) =>
    (problem: string) =>
      subject(name).push({
        subject: name,
        check,
        orderId,
        clientId,
        problem,
        lookAt: lookAt(orderId, clientId, currency),
      });
  let complete = true;

  // The feeds.
  const rows = await indexRowsChangedAfter(env.DB, span.orders, span.to, budget.orders);
  const codes = await codesSoldAfter(env.DB, span.codes, span.to, budget.codes);
  const audits = await postingAuditsAfter(env.DB, span.auditId, span.to, budget.audits);
  const moved = await movedWalletsBetween(env.DB, span.movesAt, span.to, budget.moves);
  if (
    rows.length === budget.orders ||
    codes.length === budget.codes ||
    audits.length === budget.audits ||
    moved.length === budget.moves
  )
    complete = false;
  checked.soldCodes = codes.length;

  /** The orders to check, each with who named it (a ledger's wallet, a code) when no row did. */
  const orders = new Map<string, { clientId?: string; currency?: string; code?: SoldCode }>();
  const rowOf = new Map<string, IndexRow>();
  for (const row of rows) {
    orders.set(row.id, {});
    rowOf.set(row.id, row);
  }
  for (const code of codes) if (!orders.has(code.orderId)) orders.set(code.orderId, { code });
  for (const orderId of [...span.deferred.keys(), ...span.recheck.orders])
    if (!orders.has(orderId)) orders.set(orderId, {});

  const walletsNamed = new Map<string, { clientId: string; currency: string }>();
  const nameWallet = (clientId: string, currency: string) =>
    walletsNamed.set(walletKey(clientId, currency), { clientId, currency });
  for (const row of rows) nameWallet(row.clientId, row.wallet);
  for (const audit of audits) {
    const wallet = targetWallet(audit.target);
    if (wallet !== null) nameWallet(wallet.clientId, wallet.currency);
  }
  for (const wallet of [...moved, ...span.recheck.wallets]) nameWallet(wallet.clientId, wallet.currency);
  const registry = await registryOf(env.DB, [...walletsNamed.values()]);

  // 1. The ledgers of the wallets that moved money: every posting with its audit row, every transfer
  // paired, every object's balance its ledger's sum; the orders their entries name join the orders checked.
  const ledgerCursors = new Map<string, number>();
  let pagesLeft = budget.ledgerPages;
  for (const { clientId, currency } of walletsNamed.values()) {
    const wallet = registry.get(walletKey(clientId, currency));
    const walletSubject = `wallet:${clientId}:${currency}`;
    const mismatch = found(walletSubject, "balance_matches_ledger", null, clientId, currency);
    subject(walletSubject);
    if (wallet === undefined) continue;
    checked.wallets += 1;
    const placements = historyOf(wallet);
    const current = placementOf(wallet);
    let balances = new Money(0);
    let sums = new Money(0);
    for (const [at, placement] of placements.entries()) {
      checked.walletObjects += 1;
      const name = walletName(clientId, currency, placement.generation, placement.region);
      const stub = placedWallet(env, clientId, currency, placement);
      let audited: Awaited<ReturnType<typeof auditedEntries>> | null = null;
      let after = await span.ledgerFrom(name, stub);
      let cursor = after;
      let settledSoFar = true;
      while (pagesLeft > 0) {
        pagesLeft -= 1;
        const page = (await stub.entries(after, LEDGER_PAGE)) as LedgerEntry[];
        for (const entry of page) {
          checked.ledgerEntries += 1;
          const settled = entry.createdAt <= settledBy;
          // The cursor moves past settled entries only: a later run reads the rest again.
          if (settled && settledSoFar) cursor = entry.seq;
          else settledSoFar = false;
          if (entry.orderId !== null && !orders.has(entry.orderId)) orders.set(entry.orderId, { clientId, currency });
          if (!settled) continue;
          if ((entry.kind === "top_up" || entry.kind === "adjustment") && !entry.key.startsWith(SANDBOX_TOP_UP)) {
            audited ??= await auditedEntries(env.DB, walletTarget(clientId, currency, placement));
            if (entry.seq > audited.restoredThrough && !audited.keys.has(`wallet.${entry.kind}:${entry.seq}`))
              found(
                `entry:${name}:${entry.seq}`,
                "posting_audited",
                null,
                clientId,
                currency,
              )(`${entry.kind} #${entry.seq} of ${entry.amount} in ${name} has no audit row`);
          }
          if (entry.kind === "move_out" || entry.kind === "move_in") {
            checked.transfers += 1;
            const other = placements[entry.kind === "move_out" ? at + 1 : at - 1];
            const pairMismatch = found(`entry:${name}:${entry.seq}`, "transfer_paired", null, clientId, currency);
            if (other === undefined) {
              pairMismatch(`${entry.kind} ${entry.key} in ${name}: the registry lists no object on its other side`);
              continue;
            }
            const otherName = walletName(clientId, currency, other.generation, other.region);
            const pair = (await placedWallet(env, clientId, currency, other).entry(entry.key)) as LedgerEntry | null;
            const problem = transferProblem(entry, pair, otherName);
            if (problem !== null) pairMismatch(problem);
          }
        }
        if (page.length < LEDGER_PAGE) break;
        after = page[page.length - 1]!.seq;
        if (pagesLeft === 0) complete = false;
      }
      if (cursor > 0) ledgerCursors.set(name, cursor);
      const { balance, ledgerSum } = await stub.audit();
      balances = balances.plus(balance);
      sums = sums.plus(ledgerSum);
      if (!new Money(balance).equals(ledgerSum))
        mismatch(`${name}: the balance is ${balance}, its ledger sums to ${new Money(ledgerSum).toFixed()}`);
      else if (placement.generation < current.generation && !new Money(balance).isZero())
        mismatch(`${name}: the wallet moved on, yet this object holds ${balance}`);
    }
    if (!balances.equals(sums))
      mismatch(`across its objects the balance is ${balances.toFixed()}, the ledgers sum to ${sums.toFixed()}`);
  }

  // 2. Every audit row of a posting with its ledger entry: the same kind and amount at the seq it names.
  const auditWallets = await registryOf(
    env.DB,
    audits.flatMap((audit) => {
      const wallet = targetWallet(audit.target);
      return wallet === null || registry.has(walletKey(wallet.clientId, wallet.currency)) ? [] : [wallet];
    }),
  );
  for (const audit of audits) {
    subject(`audit:${audit.id}`);
    await checkAudit(env, audit, registry, auditWallets, found);
    checked.postingAudits += 1;
  }

  // 3. The orders: the order object, its index row, its ledger lines and its codes. Those beyond the budget
  // (named by ledgers and codes in bulk) are left to the next run.
  const named = [...orders.keys()];
  const ids = named.slice(0, budget.checkedOrders);
  const overflow = named.slice(budget.checkedOrders);
  if (overflow.length > 0) complete = false;
  const records = new Map<string, OrderRecord | null>();
  (await inBatches(ids, (orderId) => orderRecordById(env.ORDERS, orderId))).forEach((record, at) =>
    records.set(ids[at]!, record),
  );
  const known = [...records.values()].filter((record): record is OrderRecord => record !== null);
  const byClient = new Map<string, string[]>();
  for (const record of known)
    if (!rowOf.has(record.id))
      byClient.set(record.clientId, [...(byClient.get(record.clientId) ?? []), record.reference]);
  for (const [clientId, references] of byClient)
    for (const row of (await indexRowsByReference(env.DB, clientId, references)).values()) rowOf.set(row.id, row);
  const orderWallets = await registryOf(
    env.DB,
    known
      .filter((record) => !registry.has(walletKey(record.clientId, record.wallet)))
      .map((record) => ({ clientId: record.clientId, currency: record.wallet })),
  );
  for (const [key, wallet] of registry) orderWallets.set(key, wallet);
  const sold = new Map<string, CodeByPin[]>();
  for (const code of await codesSoldTo(
    env.DB,
    known.map((record) => record.id),
  ))
    sold.set(code.orderId, [...(sold.get(code.orderId) ?? []), { ...code, status: "sold" }]);
  const redeemOf = (record: OrderRecord) =>
    record.lines
      .filter((line) => line.product.supplier === "inventory")
      .flatMap((line) => (line.redeem?.pins ?? []).map((pin) => ({ sku: line.sku, pin })));
  const lostPins = known.flatMap((record) => {
    const own = new Set((sold.get(record.id) ?? []).map((code) => `${code.sku}\u0000${code.pin}`));
    return redeemOf(record).filter((pin) => !own.has(`${pin.sku}\u0000${pin.pin}`));
  });
  const byPin = await codesByPins(env.DB, lostPins);

  // Each order's lines in every object its wallet has been (a charge may have met a moved wallet), asked
  // a few orders at once.
  const moneyOf = new Map<string, OrderMoney>();
  await inBatches(known, async (record) => {
    let money: OrderMoney = emptyMoney(record.clientId, record.wallet);
    const wallet = orderWallets.get(walletKey(record.clientId, record.wallet));
    for (const placement of wallet === undefined ? [] : historyOf(wallet))
      for (const entry of (await placedWallet(env, record.clientId, record.wallet, placement).orderEntries(
        record.id,
      )) as LedgerEntry[])
        money = addLine(money, entry.kind, entry.amount, entry.createdAt, true);
    moneyOf.set(record.id, money);
  });

  const defer = new Map<string, number>(overflow.map((orderId) => [orderId, span.deferred.get(orderId) ?? now]));
  checked.leftToNextRun += overflow.length;
  const undefer = new Set<string>();
  for (const orderId of ids) {
    const record = records.get(orderId)!;
    const named = orders.get(orderId)!;
    const orderSubject = `order:${orderId}`;
    subject(orderSubject);
    if (record === null) {
      undefer.add(orderId);
      if (named.code !== undefined)
        found(
          orderSubject,
          "unknown_order",
          null,
          null,
          null,
        )(`code #${named.code.id} (${named.code.sku}) is sold to ${orderId}, which is no order of this service`);
      else if (named.clientId !== undefined)
        found(
          orderSubject,
          "unknown_order",
          orderId,
          named.clientId,
          named.currency!,
        )(`the ${named.clientId} ${named.currency} ledger names ${orderId}, which is no order of this service`);
      continue;
    }
    checked.orders += 1;
    const { clientId, wallet: currency } = record;
    const mismatch = (check: CheckName) => found(orderSubject, check, orderId, clientId, currency);
    if (named.clientId !== undefined && (named.clientId !== clientId || named.currency !== currency))
      mismatch("ledger_matches_order")(
        `the ${named.clientId} ${named.currency} ledger names an order of ${clientId} paid in ${currency}`,
      );
    const money = moneyOf.get(orderId) ?? emptyMoney(clientId, currency);

    const changing = record.modifiedAt > settledBy || money.lastAt > settledBy;
    const since = span.deferred.get(orderId);
    const pastBound = changing && since !== undefined && now - since >= DEFERRAL_BOUND_MS;
    if (pastBound) checked.ordersPastBound += 1;
    const settled = !changing || pastBound;
    if (settled) undefer.add(orderId);
    else {
      defer.set(orderId, since ?? now);
      checked.leftToNextRun += 1;
    }

    // Checked whatever the order is doing: a charge lands before an order says it was charged or delivers.
    const delivery = deliveryProblem(record.state, record.lines, money);
    if (delivery !== null) mismatch("charge_for_delivery")(delivery);
    for (const problem of redeemProblems(orderId, redeemOf(record), sold.get(orderId) ?? [], byPin, settled))
      mismatch("codes_match_redeem")(problem);
    const own = indexRowOf(record);
    const row = rowOf.get(orderId);
    // The row of this very version of the order is compared at once; an older one may only lag.
    if (row !== undefined && (settled || row.modifiedAt >= record.modifiedAt))
      for (const problem of indexProblems(row, own)) mismatch("index_matches_order")(problem);
    else if (row === undefined && settled)
      mismatch("index_matches_order")(`the order is ${record.state} but has no row in the index`);
    if (settled && record.state !== "created" && record.state !== "confirmed")
      for (const problem of ledgerProblems(own, money)) mismatch("ledger_matches_order")(problem);
  }

  const last = <T>(items: readonly T[]) => items[items.length - 1];
  const lastRow = last(rows);
  const lastCode = last(codes);
  return {
    checked,
    complete,
    findings,
    defer,
    undefer,
    ledgerCursors,
    next: {
      orders: lastRow === undefined ? span.orders : { modifiedAt: lastRow.modifiedAt, id: lastRow.id },
      codes: lastCode === undefined ? span.codes : { soldAt: lastCode.soldAt ?? 0, id: lastCode.id },
      auditId: last(audits)?.id ?? span.auditId,
      movesAt: last(moved)?.movedAt ?? span.movesAt,
    },
  };
}

/** One audit row of a posting against its ledger entry. */
async function checkAudit(
  env: ReconcileEnv,
  audit: PostingAudit,
  registry: Map<string, RegisteredWallet>,
  more: Map<string, RegisteredWallet>,
  found: (
    name: string,
    check: CheckName,
    orderId: string | null,
    clientId: string | null,
    currency: string | null,
  ) => (problem: string) => void,
): Promise<void> {
  const named = targetWallet(audit.target);
  const auditSubject = `audit:${audit.id}`;
  const mismatch = found(auditSubject, "audit_has_posting", null, named?.clientId ?? null, named?.currency ?? null);
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
 * The checks over the changes of a period (orders changed, codes sold, postings audited and wallets moved
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
    orders: { modifiedAt: createdFrom - 1, id: "~" },
    codes: { soldAt: createdFrom - 1, id: Number.MAX_SAFE_INTEGER },
    auditId: await lastAuditIdBefore(env.DB, createdFrom),
    movesAt: createdFrom - 1,
    to: createdTo,
    now,
    settledBy: now - (period.grace ?? DEFAULT_GRACE_SECONDS) * 1000,
    deferred: new Map(),
    recheck: { orders: [], wallets: [] },
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
  const outcome = await check(env, {
    orders: checkpoint.orders,
    codes: checkpoint.codes,
    auditId: checkpoint.auditId,
    movesAt: checkpoint.movesAt,
    to: now,
    now,
    settledBy: now - graceSeconds * 1000,
    deferred,
    recheck: await standingSubjects(db, budget.deferred),
    ledgerFrom: async (name) => {
      cursors ??= new Map();
      if (!cursors.has(name)) for (const [wallet, seq] of await ledgerCursorsOf(db, [name])) cursors.set(wallet, seq);
      return cursors.get(name) ?? 0;
    },
    budget,
  });

  const statements: D1PreparedStatement[] = [];
  for (const [subject, found] of outcome.findings) statements.push(...findingStatements(db, subject, found, now));
  for (const [orderId, since] of outcome.defer) statements.push(deferStatement(db, orderId, since));
  for (const orderId of outcome.undefer) statements.push(undeferStatement(db, orderId));
  for (const [wallet, seq] of outcome.ledgerCursors) statements.push(ledgerCursorStatement(db, wallet, seq));
  for (let start = 0; start < statements.length; start += 200) await db.batch(statements.slice(start, start + 200));

  // Left to the next run: the orders still changing, and the changes beyond the budget.
  const left =
    (await deferredCount(db)) + (outcome.complete ? 0 : await indexRowsChangedCount(db, outcome.next.orders, now));
  outcome.checked.leftToNextRun = left;
  const rising = left > checkpoint.leftToNext && left > 0 ? checkpoint.leftRising + 1 : 0;
  const risen = risingAlert(rising, left);
  if (risen !== null) alerts.push(risen);
  const run = reconciliationOf(outcome, checkpoint.orders.modifiedAt, now, alerts);
  const standing = await standingFindings(db, STORED_MISMATCHES);
  await db.batch([
    checkpointStatement(db, {
      ...checkpoint,
      ...outcome.next,
      finishedAt: now,
      leftToNext: left,
      leftRising: rising,
    }),
    saveRunStatement(db, now, run, standing),
  ]);
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
    standing: standing.count,
  });
  return run;
}

/** On-demand runs (GET /admin/reconciliation, the console's "run now"): this many per operator a window. */
export const ON_DEMAND_RUNS = 3;
export const ON_DEMAND_WINDOW_MS = 60_000;

/** Takes one of the actor's on-demand runs; false: they have run it ON_DEMAND_RUNS times this minute. */
export function takeOnDemandRun(db: D1Database, actor: string, now = Date.now()): Promise<boolean> {
  return takeDemand(db, actor, now, ON_DEMAND_RUNS, ON_DEMAND_WINDOW_MS);
}
