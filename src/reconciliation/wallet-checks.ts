/**
 * The checks of a wallet-day's movements that are not an order's (docs/operator-api.md, Reconciliation):
 * every posting of the day has its audit row (`posting_audited`), every move transfer its pair on the other
 * object (`transfer_paired`), every object's running balance follows from its entries and an object the
 * wallet moved on from holds nothing (`balance_matches_ledger`); and every audit row of a posting names an
 * entry of that kind and amount (`audit_has_posting`), checked as the audit log's feed brings it.
 */
import { Money } from "../pricing/money";
import { walletName, type LedgerEntry } from "../wallets/ledger";
import type { LedgerDayPage } from "../wallets/ledger-day-rules";
import { historyOf, placedWallet, type RegisteredWallet } from "../wallets/wallet-registry-store";
import type { ReconcileEnv, WalletObjectAt } from "./day-sources";
import type { Findings } from "./findings";
import type { PostingAudit } from "./reconciliation-feeds";
import { transferProblem } from "./reconciliation-rules";

/** Keys of a client's own sandbox top-ups: no operator made them, so no audit row names them. */
const SANDBOX_TOP_UP = "sandbox-top-up:";

/** Whether a posting needs an audit row: a top-up or adjustment an operator made. */
export function needsAudit(posting: { kind: string; key: string }): boolean {
  return (posting.kind === "top_up" || posting.kind === "adjustment") && !posting.key.startsWith(SANDBOX_TOP_UP);
}

/**
 * One object's day: each posting with its audit row (a restore's row covers the entries it wrote), each
 * transfer with its pair, and each break of its running balance. Answers the postings audited.
 */
export async function checkObjectDay(
  env: ReconcileEnv,
  object: WalletObjectAt,
  page: LedgerDayPage,
  audited: { keys: Set<string>; restoredThrough: number } | undefined,
  findings: Findings,
): Promise<{ postings: number; audited: number }> {
  const { clientId, currency, name } = object;
  let postings = 0;
  let found = 0;
  for (const posting of page.postings) {
    const subject = `entry:${name}:${posting.seq}`;
    findings.checked(subject);
    if (!needsAudit(posting)) continue;
    postings += 1;
    findings.counted.postingAudits += 1;
    if (
      audited !== undefined &&
      (posting.seq <= audited.restoredThrough || audited.keys.has(`wallet.${posting.kind}:${posting.seq}`))
    )
      found += 1;
    else
      findings.of(
        subject,
        "posting_audited",
        null,
        clientId,
        currency,
      )(`${posting.kind} #${posting.seq} of ${posting.amount} in ${name} has no audit row`);
  }
  for (const transfer of page.transfers) await checkTransfer(env, object, transfer, findings);
  const balance = findings.of(`wallet:${clientId}:${currency}`, "balance_matches_ledger", null, clientId, currency);
  for (const broken of page.breaks)
    balance(
      `${name}: entry #${broken.seq} leaves a balance of ${broken.found}, its amount and the balance before it make ${broken.expected}`,
    );
  return { postings, audited: found };
}

/** A transfer of the day: a `move_out` has its `move_in` on the next object, and a `move_in` its `move_out`. */
async function checkTransfer(
  env: ReconcileEnv,
  object: WalletObjectAt,
  transfer: LedgerDayPage["transfers"][number],
  findings: Findings,
): Promise<void> {
  const { clientId, currency, name, placements, at } = object;
  const subject = `entry:${name}:${transfer.seq}`;
  findings.checked(subject);
  findings.counted.transfers += 1;
  const mismatch = findings.of(subject, "transfer_paired", null, clientId, currency);
  const other = placements[transfer.kind === "move_out" ? at + 1 : at - 1];
  if (other === undefined) {
    mismatch(`${transfer.kind} ${transfer.key} in ${name}: the registry lists no object on its other side`);
    return;
  }
  const otherName = walletName(clientId, currency, other.generation, other.region);
  const pair = (await placedWallet(env, clientId, currency, other).entry(transfer.key)) as LedgerEntry | null;
  const problem = transferProblem(transfer, pair, otherName);
  if (problem !== null) mismatch(problem);
}

/**
 * Every object of the wallet: its balance is its ledger's sum (read whole: a drill, a wallet that moved),
 * and one the wallet moved on from holds nothing; across the objects, the balances are the ledgers' sum.
 */
export async function checkBalances(objects: readonly WalletObjectAt[], findings: Findings): Promise<void> {
  const first = objects[0];
  if (first === undefined) return;
  const { clientId, currency } = first;
  const mismatch = findings.of(`wallet:${clientId}:${currency}`, "balance_matches_ledger", null, clientId, currency);
  findings.counted.wallets += 1;
  let balances = new Money(0);
  let sums = new Money(0);
  for (const object of objects) {
    findings.counted.walletObjects += 1;
    const { balance, ledgerSum } = await object.stub.audit();
    balances = balances.plus(balance);
    sums = sums.plus(ledgerSum);
    if (!new Money(balance).equals(ledgerSum))
      mismatch(`${object.name}: the balance is ${balance}, its ledger sums to ${new Money(ledgerSum).toFixed()}`);
    else if (object.movedOn && !new Money(balance).isZero())
      mismatch(`${object.name}: the wallet moved on, yet this object holds ${balance}`);
  }
  if (!balances.equals(sums))
    mismatch(`across its objects the balance is ${balances.toFixed()}, the ledgers sum to ${sums.toFixed()}`);
}

/** The wallet an audit row's target names (`wallet:<client>:<currency>[:<generation>]`), or null. */
export function targetWallet(target: string): { clientId: string; currency: string; generation: number } | null {
  const match = /^wallet:(.+):([A-Z]{3})(?::(\d+))?$/.exec(target);
  return match === null
    ? null
    : { clientId: match[1]!, currency: match[2]!, generation: match[3] === undefined ? 0 : Number(match[3]) };
}

/**
 * One audit row of a posting against its ledger entry: the same kind and amount at the seq it names.
 * Answers the entry (null when there is none to find), whose day is then checked too.
 */
export async function checkAudit(
  env: ReconcileEnv,
  audit: PostingAudit,
  wallet: RegisteredWallet | undefined,
  findings: Findings,
): Promise<LedgerEntry | null> {
  const named = targetWallet(audit.target);
  const subject = `audit:${audit.id}`;
  findings.checked(subject);
  findings.counted.postingAudits += 1;
  const mismatch = findings.of(subject, "audit_has_posting", null, named?.clientId ?? null, named?.currency ?? null);
  if (named === null) {
    mismatch(`audit row #${audit.id} (${audit.action}) names ${audit.target}, which is no wallet object`);
    return null;
  }
  const placement =
    wallet === undefined ? undefined : historyOf(wallet).find((one) => one.generation === named.generation);
  if (placement === undefined || audit.seq === null) {
    mismatch(`audit row #${audit.id} (${audit.action}) names ${audit.target}, which the registry does not hold`);
    return null;
  }
  const [entry] = (await placedWallet(env, named.clientId, named.currency, placement).entries(
    audit.seq - 1,
    1,
  )) as LedgerEntry[];
  if (entry === undefined || entry.seq !== audit.seq) {
    mismatch(
      `audit row #${audit.id} (${audit.action} of ${audit.amount}) names entry #${audit.seq}, which the ledger does not hold`,
    );
    return null;
  }
  if (`wallet.${entry.kind}` !== audit.action || audit.amount === null || !new Money(audit.amount).equals(entry.amount))
    mismatch(
      `audit row #${audit.id} says ${audit.action} of ${audit.amount}, entry #${entry.seq} is ${entry.kind} of ${entry.amount}`,
    );
  return entry;
}
