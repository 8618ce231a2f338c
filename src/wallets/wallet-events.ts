/**
 * The wallet's events (docs/api.md, "Events"): `wallet.funded` (an operator's top-up or positive credit,
 * with its client-facing note, never its reason) and `wallet.low` (the balance below the client's
 * threshold: wallet-alert-rules.ts). Each is written to the wallet's `event_outbox` in the same
 * transaction as the change it announces, and the wallet's alarm hands the outbox to the client's books
 * (the shard of the event's day, which announces it to the client's account endpoints), deleting each row
 * only once the books have it: a crash before that hands it again with the same id, which the books take
 * as a repeat. The alarm is set in that same transaction.
 */
import { recordClientEvents } from "../books/event-writer";
import type { BookEvent } from "../books/event-rules";
import { Money } from "../pricing/money";
import type { LedgerEntry } from "./ledger";
import { afterBalance, alertChanged, newAlert, type BalanceAlert } from "./wallet-alert-rules";
import { WalletEventStore } from "./wallet-event-store";

export { WalletEventStore, type WalletFunded, type WalletLow } from "./wallet-event-store";

/** Who a posting credits, for its wallet.funded: an operator's top-up or adjustment names them. */
export interface Announce {
  clientId: string;
  currency: string;
}

/** How many waiting events an alarm run hands over at most. */
const HAND_OVER = 100;

function eventId(): string {
  return `evt_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * What a change of the balance writes beside it, in its transaction: wallet.funded for `funded` (a new
 * operator credit), wallet.low when the new balance crosses the threshold downwards; answers whether it
 * queued an event.
 */
export function eventsOfChange(
  store: WalletEventStore,
  balance: Money,
  funded: { entry: LedgerEntry; announce: Announce } | null,
  now: number,
  livemode: boolean,
): boolean {
  let queued = false;
  if (funded !== null && new Money(funded.entry.amount).isPositive()) {
    const { entry, announce } = funded;
    store.enqueue(announce.clientId, {
      id: eventId(),
      type: "wallet.funded",
      createdAt: now,
      data: { currency: announce.currency, amount: entry.amount, balance: entry.balanceAfter, note: entry.note },
      livemode,
    });
    queued = true;
  }
  const alert = store.alert();
  if (alert === null) return queued;
  const after = afterBalance(alert, balance, now);
  if (alertChanged(alert, after.alert)) store.writeAlert(after.alert);
  if (!after.fires) return queued;
  store.enqueue(alert.clientId, {
    id: eventId(),
    type: "wallet.low",
    createdAt: now,
    data: { currency: alert.currency, balance: balance.toFixed(), threshold: alert.threshold },
    livemode,
  });
  return true;
}

/** Sets (or, with null, clears) the threshold, armed by the balance now. */
export function setThreshold(
  store: WalletEventStore,
  owner: Announce,
  threshold: string | null,
  balance: Money,
): BalanceAlert | null {
  const alert = threshold === null ? null : newAlert(owner, threshold, balance, store.alert());
  store.writeAlert(alert);
  return alert;
}

/**
 * Hands up to HAND_OVER waiting events to their clients' books, through `hand` (the seam), and deletes
 * them; answers whether more wait. A failure throws with nothing deleted: the alarm runs again.
 */
export async function handOver(
  store: WalletEventStore,
  books: Pick<Env, "BOOKS">["BOOKS"],
  hand: (call: () => Promise<unknown>) => Promise<unknown>,
): Promise<boolean> {
  const waiting = store.waiting(HAND_OVER);
  if (waiting.length === 0) return false;
  const byClient = new Map<string, BookEvent[]>();
  for (const { clientId, event } of waiting) byClient.set(clientId, [...(byClient.get(clientId) ?? []), event]);
  await hand(() => Promise.all([...byClient].map(([clientId, events]) => recordClientEvents(books, clientId, events))));
  store.remove(waiting.map(({ event }) => event.id));
  return waiting.length === HAND_OVER;
}
