/**
 * What a flow of a shard sees of its Durable Object (src/books/books-object.ts): its storage, D1, the
 * clock, its fault seams, the day's parts, the answers waiting for their row's write, and what it has
 * published. Each flow names the part it uses (`Pick<ShardHost, …>`).
 */
import type { OrderAnswer } from "./answer-rules";
import type { BooksSeam } from "./seams";
import type { ShardAddress } from "./shard-rules";
import type { ShardStore } from "./shard-store";

/** An order's answers waiting in memory for its row's next write, and since when. */
export interface WaitingAnswers {
  createdAt: number;
  answers: OrderAnswer[];
  since: number;
  /** When the alarm writes them on their own if their row's write has not (ANSWER_WAIT_MS after `since`). */
  dueAt: number;
}

/** What the shard's instance knows of its publishing (nothing survives a restart: it then publishes all). */
export interface PublishMemory {
  /** By wallet: the `changes` this instance last published (absent: not known). */
  published: Map<string, number>;
  /** When the first change not yet published was made (null: none known). */
  firstWaitingAt: number | null;
  lastPublishAt: number;
}

export interface ShardHost {
  readonly store: ShardStore;
  readonly db: D1Database;
  now(): number;
  io<T>(seam: BooksSeam, call: () => Promise<T>): Promise<T>;
  /** The parts of the shard's day, read from D1 once per instance. */
  parts(address: ShardAddress): Promise<number>;
  /** Answers held for their row's write, by order id. */
  readonly waiting: Map<string, WaitingAnswers>;
  readonly publishing: PublishMemory;
  /** Sets the alarm for the next publish (no write when one is set at or before it). */
  armAlarm(): Promise<void>;
}
