/**
 * A wallet's ledger across every object it has been (a wallet that moves to another region becomes another
 * object: wallet-moves.ts), read from the objects themselves, so always current. Two views of it:
 *
 * - the operator's: every entry, each with the object it is in (historyEntries);
 * - the client's: its movements of money only (movements, movementsPage, and openingBalance for a
 *   statement). A move between objects is not a movement: its `move_out` and `move_in` are left out. A
 *   credit a moved object took after its move (a refund, a void's credit-back) was passed on to the newer
 *   object at once; it is shown once, where it landed, so that every movement's balance after is the
 *   balance of the object that held the money then. Void markers are not in the ledger at all.
 *
 * Nothing here writes: a reader of the console's or anyone's can use it (the console's balance over time,
 * for one).
 */
import { Money } from "../pricing/money";
import type { LedgerEntry } from "./ledger";
import { isMoveKey, moveKey, orderCreditOfKey, referenceOfChargeReason, rootOfForward } from "./ledger-keys";
import type { Placement, WalletObject } from "./wallet-object";
import { historyOf, placedWallet, type RegisteredWallet } from "./wallet-registry-store";

/**
 * A position in a wallet's whole history, as one integer: the entry's seq within its object, plus its
 * object's generation times this. A wallet that never moved has generation 0, so its positions are its
 * seqs, as before moves existed; an object would need 10^12 entries to reach the next generation's.
 */
const GENERATION_STRIDE = 1_000_000_000_000;

function positionOf(placement: Placement, seq: number): number {
  return placement.generation * GENERATION_STRIDE + seq;
}

/** A ledger entry and the wallet object it is in (a moved wallet is a new object each time). */
export type PlacedEntry = LedgerEntry & { wallet: Placement };

/** A page of a wallet's history: the client's wallet in a currency, where the page starts and its size. */
export interface HistoryPage {
  clientId: string;
  currency: string;
  registered: RegisteredWallet;
  position: number;
  count: number;
}

/** Up to `count` entries of the wallet's history after `position`: its objects' ledgers, oldest first. */
export async function historyEntries(
  env: Pick<Env, "WALLETS">,
  { clientId, currency, registered, position, count }: HistoryPage,
): Promise<{ entry: PlacedEntry; position: number }[]> {
  const fromGeneration = Math.floor(position / GENERATION_STRIDE);
  const rows: { entry: PlacedEntry; position: number }[] = [];
  for (const wallet of historyOf(registered)) {
    if (wallet.generation < fromGeneration || rows.length >= count) continue;
    const afterSeq = wallet.generation === fromGeneration ? position % GENERATION_STRIDE : 0;
    const entries = (await placedWallet(env, clientId, currency, wallet).entries(
      afterSeq,
      count - rows.length,
    )) as LedgerEntry[];
    rows.push(...entries.map((entry) => ({ entry: { ...entry, wallet }, position: positionOf(wallet, entry.seq) })));
  }
  return rows;
}

/** What a client's money did, by kind: a move between the wallet's objects is none of these. */
export type MovementKind = "top_up" | "adjustment" | "order_charge" | "order_refund" | "order_void";

/** One movement of a client's money as the client sees it; amounts are exact decimal strings. */
export interface Movement {
  /** Where the movement is in the wallet's history: `after` continues a page from here. */
  position: number;
  createdAt: number;
  kind: MovementKind;
  /** Signed: credits positive, debits negative. */
  amount: string;
  /** The wallet's balance right after it. */
  balanceAfter: string;
  orderId: string | null;
  /** That order's reference, as the client gave it (null when the wallet's ledger does not name it). */
  reference: string | null;
  /** For a refund: the SKU of the line that could not be fulfilled. */
  sku: string | null;
  /** For a top-up or an adjustment: the note the operator wrote for the client (never its internal reason). */
  note: string | null;
}

/**
 * The movement an entry is, or null when it is none: a move, or anything the object took after its own
 * move (`movedAt`: the seq of its move_out; those credits were passed on and show where they landed).
 */
function movementOf(entry: LedgerEntry, placement: Placement, movedAt: number | null): Movement | null {
  if (movedAt !== null && entry.seq >= movedAt) return null;
  const shown = {
    position: positionOf(placement, entry.seq),
    createdAt: entry.createdAt,
    amount: entry.amount,
    balanceAfter: entry.balanceAfter,
    reference: null,
  };
  switch (entry.kind) {
    case "move_out":
      return null;
    case "move_in": {
      const root = rootOfForward(entry.key);
      if (isMoveKey(root)) return null;
      const credit = orderCreditOfKey(root);
      // Only order credits are passed on (postings.ts): anything else would be money the client cannot see.
      if (credit === null) throw new Error(`ledger entry ${entry.key}: a transfer of no known credit`);
      return {
        ...shown,
        kind: credit.kind,
        orderId: credit.orderId,
        sku: credit.kind === "order_refund" ? credit.sku : null,
        note: null,
      };
    }
    case "top_up":
    case "adjustment":
      // The operator's reason stays inside: the client is shown only the note written for it.
      return { ...shown, kind: entry.kind, orderId: null, sku: null, note: entry.note ?? null };
    case "order_refund":
      return { ...shown, kind: entry.kind, orderId: entry.orderId, sku: orderSku(entry.key), note: null };
    case "order_charge":
      return {
        ...shown,
        kind: entry.kind,
        orderId: entry.orderId,
        reference: referenceOfChargeReason(entry.reason),
        sku: null,
        note: null,
      };
    case "order_void":
      return { ...shown, kind: entry.kind, orderId: entry.orderId, sku: null, note: null };
  }
}

function orderSku(key: string): string | null {
  const credit = orderCreditOfKey(key);
  return credit?.kind === "order_refund" ? credit.sku : null;
}

/** Where a walk of the client's movements starts in each object: after a position, or at a time. */
type Start = { after: number } | { from: number };

/**
 * The client's movements in the wallet's history, oldest first, `batch` entries read at a time (a batch
 * may yield fewer movements, or none): from `start` on, up to `to` (ms, inclusive) when given. Reads only.
 */
export async function* movements(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  registered: RegisteredWallet,
  start: Start,
  options: { to?: number; batch?: number } = {},
): AsyncGenerator<Movement[]> {
  const { currency } = registered;
  const batch = options.batch ?? 500;
  const to = options.to ?? Number.POSITIVE_INFINITY;
  const history = historyOf(registered);
  // The references of the orders met so far: an order's refunds follow its charge.
  const references = new Map<string, string>();
  const fromGeneration = "after" in start ? Math.floor(start.after / GENERATION_STRIDE) : 0;
  for (const [index, placement] of history.entries()) {
    if (placement.generation < fromGeneration) continue;
    const wallet = placedWallet(env, clientId, currency, placement);
    const movedAt = index === history.length - 1 ? null : await movedAtSeq(wallet, clientId, currency, placement);
    let afterSeq =
      "after" in start
        ? placement.generation === fromGeneration
          ? start.after % GENERATION_STRIDE
          : 0
        : ((await wallet.lastBefore(start.from)) as { seq: number }).seq;
    for (;;) {
      const entries = (await wallet.entries(afterSeq, batch)) as LedgerEntry[];
      const inPeriod = entries.filter((entry) => entry.createdAt <= to);
      const shown: Movement[] = [];
      for (const entry of inPeriod) {
        const movement = movementOf(entry, placement, movedAt);
        if (movement !== null) shown.push(movement);
      }
      if (shown.length > 0)
        yield await withReferences(shown, references, history.slice(0, index + 1), (at) =>
          placedWallet(env, clientId, currency, at),
        );
      // This object's later entries are later still: the walk goes on in the next object.
      if (entries.length < batch || inPeriod.length < entries.length) break;
      afterSeq = entries[entries.length - 1]!.seq;
    }
  }
}

/**
 * The movements with their orders' references: a charge's reason names it (chargeReason), so the
 * reference of a refund or a void is its order's charge's, met earlier in the walk or asked of the objects
 * the wallet has been up to this one, newest first (a charge is never in a later object than its refunds).
 */
async function withReferences(
  shown: Movement[],
  references: Map<string, string>,
  objects: readonly Placement[],
  stubOf: (placement: Placement) => DurableObjectStub<WalletObject>,
): Promise<Movement[]> {
  for (const movement of shown)
    if (movement.orderId !== null && movement.reference !== null) references.set(movement.orderId, movement.reference);
  let missing = [
    ...new Set(
      shown.flatMap((movement) =>
        movement.orderId === null || references.has(movement.orderId) ? [] : [movement.orderId],
      ),
    ),
  ];
  for (const placement of [...objects].reverse()) {
    if (missing.length === 0) break;
    // A Durable Object's SQLite binds at most 100 parameters per statement.
    for (let start = 0; start < missing.length; start += 90) {
      const charges = (await stubOf(placement).charges(missing.slice(start, start + 90))) as LedgerEntry[];
      for (const charge of charges) {
        const reference = referenceOfChargeReason(charge.reason);
        if (charge.orderId !== null && reference !== null) references.set(charge.orderId, reference);
      }
    }
    missing = missing.filter((orderId) => !references.has(orderId));
  }
  return shown.map((movement) =>
    movement.orderId === null ? movement : { ...movement, reference: references.get(movement.orderId) ?? null },
  );
}

/** The seq of the object's move to its successor (its whole balance's move_out), or null while it has not moved. */
async function movedAtSeq(
  wallet: DurableObjectStub<WalletObject>,
  clientId: string,
  currency: string,
  placement: Placement,
): Promise<number | null> {
  const move = (await wallet.entry(moveKey(clientId, currency, placement.generation + 1))) as LedgerEntry | null;
  return move?.seq ?? null;
}

/** A page of the client's movements after position `after`, oldest first; `next` continues it (null: the last). */
export async function movementsPage(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  registered: RegisteredWallet,
  after: number,
  limit: number,
): Promise<{ movements: Movement[]; next: number | null }> {
  const rows: Movement[] = [];
  for await (const shown of movements(env, clientId, registered, { after }, { batch: limit + 1 })) {
    rows.push(...shown);
    if (rows.length > limit) break;
  }
  const page = rows.slice(0, limit);
  return { movements: page, next: rows.length > limit ? page[page.length - 1]!.position : null };
}

/**
 * The wallet's balance just before `time`: what each of its objects held then (the last entry each wrote
 * before it). Money between two objects in the instant of a move is in neither.
 */
export async function balanceBefore(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  registered: RegisteredWallet,
  time: number,
): Promise<Money> {
  const held = await Promise.all(
    historyOf(registered).map(
      async (placement) =>
        ((await placedWallet(env, clientId, registered.currency, placement).lastBefore(time)) as { balance: string })
          .balance,
    ),
  );
  return held.reduce((total, balance) => total.plus(balance), new Money(0));
}
