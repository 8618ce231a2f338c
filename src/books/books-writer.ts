/**
 * Writing to a client's books from outside its shards (docs/books.md, "Parts"): an order's row from its
 * `index` timer, and the webhook consumer's answers. Nothing here reads D1: the parts of each (client, day)
 * this isolate has written to are remembered from the shards' answers, a day not known is written to part
 * 0, and a shard refuses an order of another part with the day's parts, after which the write goes to the
 * right one. For a day of one part, nearly every client's, the first guess is the shard.
 */
import type { AnswersTaken, BooksObject, WriteAnswer } from "./books-object";
import type { OrderAnswer } from "./answer-rules";
import type { BookWrite } from "./row-rules";
import type { BookEvent } from "./event-rules";
import { dayOf, partOf, shardName, type ShardAddress } from "./shard-rules";

export type BooksNamespace = DurableObjectNamespace<BooksObject>;

/** The parts of the days this isolate has written to, by client and day; cleared when it grows past its bound. */
const knownParts = new Map<string, number>();
const KNOWN_PARTS_BOUND = 10_000;

function dayKey(clientId: string, day: number): string {
  return `${clientId}\u0000${day}`;
}

function remember(clientId: string, day: number, parts: number): void {
  if (knownParts.size >= KNOWN_PARTS_BOUND) knownParts.clear();
  knownParts.set(dayKey(clientId, day), parts);
}

/** The shard's stub. */
export function shardOf(namespace: BooksNamespace, address: ShardAddress): DurableObjectStub<BooksObject> {
  return namespace.get(namespace.idFromName(shardName(address)));
}

/** A day's parts as this isolate knows them (1 when it does not). */
function partsGuess(clientId: string, day: number): number {
  return knownParts.get(dayKey(clientId, day)) ?? 1;
}

/** How many times a write follows a shard's refusal before it gives up (a day's parts never change). */
const ROUTES = 2;

/**
 * Writes `row` to its shard, with the order's `events` of the row's day (docs/books.md, "Events"); answers
 * the rows it wrote (0: the shard had this version or a newer one, and every event). The order's events of
 * another day are the caller's to send (event-writer.ts).
 */
export async function writeToBooks(
  namespace: BooksNamespace,
  row: BookWrite,
  events: readonly BookEvent[] = [],
): Promise<number> {
  const day = dayOf(row.createdAt);
  const sameDay = events.filter((event) => dayOf(event.createdAt) === day);
  let parts = partsGuess(row.clientId, day);
  for (let route = 0; route <= ROUTES; route += 1) {
    const address = { clientId: row.clientId, day, part: partOf(row.id, parts) };
    const answer = (await shardOf(namespace, address).write(address, row, sameDay)) as WriteAnswer;
    remember(row.clientId, day, answer.parts);
    if (!("misrouted" in answer)) return answer.written;
    parts = answer.parts;
  }
  throw new Error(`order ${row.id}: its day's shards kept refusing it`);
}

/** Sends each shard its answers, one request per shard; answers the rows the shards wrote. */
export async function recordAnswers(namespace: BooksNamespace, answers: readonly OrderAnswer[]): Promise<number> {
  let pending = [...answers];
  let written = 0;
  for (let route = 0; route <= ROUTES && pending.length > 0; route += 1) {
    const byShard = new Map<string, { address: ShardAddress; answers: OrderAnswer[] }>();
    for (const answer of pending) {
      const day = dayOf(answer.orderCreatedAt);
      const address = {
        clientId: answer.clientId,
        day,
        part: partOf(answer.orderId, partsGuess(answer.clientId, day)),
      };
      const shard = byShard.get(shardName(address)) ?? { address, answers: [] };
      shard.answers.push(answer);
      byShard.set(shardName(address), shard);
    }
    const taken = await Promise.all(
      [...byShard.values()].map(async ({ address, answers: mine }) => {
        const answer = (await shardOf(namespace, address).answers(address, mine)) as AnswersTaken;
        remember(address.clientId, address.day, answer.parts);
        return answer;
      }),
    );
    written += taken.reduce((sum, answer) => sum + answer.written, 0);
    pending = taken.flatMap((answer) => answer.misrouted);
  }
  if (pending.length > 0) throw new Error(`${pending.length} webhook answers: their days' shards kept refusing them`);
  return written;
}
