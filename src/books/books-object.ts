import { DurableObject } from "cloudflare:workers";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { flushAnswers, takeAnswers, type AnswersTaken } from "./answer-flow";
import { mergeAnswers, type OrderAnswer } from "./answer-rules";
import { layoutsOf } from "./directory-store";
import { nextPublish, publish } from "./publish-flow";
import type { BookWrite } from "./row-rules";
import { BOOKS_SEAMS } from "./seams";
import type { ShardHost } from "./shard-host";
import { partsOn, type ShardAddress } from "./shard-rules";
import { ShardStore, type ShardQuery, type StoredCounters, type StoredRow } from "./shard-store";
import { writeRow, type WriteAnswer } from "./write-flow";
import { eventsDue, expireEvents, recordEvents, type EventAnnouncer, type EventHost } from "./event-flow";
import type { BookEvent } from "./event-rules";
import { EventStore, type EventQuery } from "./event-store";

export type { WriteAnswer } from "./write-flow";
export type { AnswersTaken } from "./answer-flow";

/** No account endpoints: what a shard announces to when src/index.ts hands it no announcer (tests of the books). */
const NO_ANNOUNCER: EventAnnouncer = async () => undefined;

/** How soon an alarm whose publish failed runs again. */
const PUBLISH_RETRY_MS = 60_000;

/**
 * One shard of a client's books (docs/books.md): one client's orders of one day, or of one part of it.
 * The RPC surface only; each flow is a module of its own (write-flow.ts, answer-flow.ts, publish-flow.ts)
 * that sees the object through `ShardHost` (shard-host.ts), and its storage is shard-store.ts. Every call
 * names the shard's address (the name it was reached by); the shard stores it with its first row.
 */
export class BooksObject extends DurableObject<Env> {
  private readonly store: ShardStore;
  private readonly host: ShardHost;
  private readonly events: EventStore;
  private readonly eventHost: EventHost;
  /** The day's parts, read from D1 once per instance. */
  private dayParts: Promise<number> | null = null;
  /** The alarm time this instance last stored (null: none); undefined when not known yet. */
  private alarmAt: number | null | undefined = undefined;

  /**
   * `announce` hands new events to the client's account webhook endpoints: src/index.ts gives the
   * webhooks' (which the books may not import).
   */
  constructor(ctx: DurableObjectState, env: Env, announce: EventAnnouncer = NO_ANNOUNCER) {
    super(ctx, env);
    this.store = new ShardStore(ctx.storage);
    this.host = {
      store: this.store,
      db: env.DB,
      now: () => Date.now(),
      io: (seam, call) => io(seam, call),
      parts: (address) => this.partsOf(address),
      waiting: new Map(),
      publishing: { published: new Map(), firstWaitingAt: null, lastPublishAt: 0 },
      armAlarm: () => this.armAlarm(),
    };
    this.events = new EventStore(ctx.storage);
    this.eventHost = {
      events: this.events,
      db: env.DB,
      now: () => Date.now(),
      io: (seam, call) => io(seam, call),
      announce,
      armAlarm: () => this.armAlarm(),
    };
  }

  private partsOf(address: ShardAddress): Promise<number> {
    this.dayParts ??= io(BOOKS_SEAMS.layout, () => layoutsOf(this.env.DB, address.clientId)).then(
      (layouts) => partsOn(layouts, address.day),
      (error: unknown) => {
        this.dayParts = null;
        throw error;
      },
    );
    return this.dayParts;
  }

  /**
   * Sets the alarm for the next publish, when none is set for it already: one alarm write a publish, the
   * first change after the last one (a change while one is set writes nothing).
   */
  private async armAlarm(): Promise<void> {
    const publishDue = nextPublish(this.host);
    const expiryDue = eventsDue(this.events);
    const due = publishDue === null ? expiryDue : expiryDue === null ? publishDue : Math.min(publishDue, expiryDue);
    if (due === null) return;
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= due) return;
    this.alarmAt = undefined;
    await this.ctx.storage.setAlarm(due);
    this.alarmAt = due;
  }

  /**
   * Writes an order's row, taking only a newer version (write-flow.ts), and the order's events of this
   * day that the shard does not hold yet (event-flow.ts): the events ride with the row's request.
   */
  async write(address: ShardAddress, row: BookWrite, events: BookEvent[] = []): Promise<WriteAnswer> {
    const answer = await writeRow(this.host, address, row);
    if ("misrouted" in answer || events.length === 0) return answer;
    return { ...answer, written: answer.written + (await recordEvents(this.eventHost, address, events)) };
  }

  /** Stores the client's events of this day it does not hold yet (event-flow.ts); answers the rows written. */
  async recordEvents(address: ShardAddress, events: BookEvent[]): Promise<number> {
    return recordEvents(this.eventHost, address, events);
  }

  /** A page of the shard's events, newest first, filtered. */
  async eventPage(query: EventQuery): Promise<BookEvent[]> {
    return this.events.page(query);
  }

  /** A page of the shard's orders, newest first, filtered. */
  async page(query: ShardQuery): Promise<StoredRow[]> {
    return this.store.page(query);
  }

  /**
   * One order's row, with its webhook answers (those still waiting in memory for the row's next write
   * too); null when the shard does not have it.
   */
  async row(createdAt: number, orderId: string): Promise<StoredRow | null> {
    const row = this.store.row(createdAt, orderId);
    const waiting = this.host.waiting.get(orderId);
    return row === null || waiting === undefined
      ? row
      : { ...row, deliveries: mergeAnswers(row.deliveries, waiting.answers) };
  }

  /** Each wallet's counters of the day: the summary issue 43 compares with the ledger. */
  async counters(): Promise<StoredCounters[]> {
    return this.store.allCounters();
  }

  /** Takes the receivers' answers to events of this shard's orders (answer-flow.ts). */
  async answers(address: ShardAddress, answers: OrderAnswer[]): Promise<AnswersTaken> {
    return takeAnswers(this.host, address, answers);
  }

  /**
   * Deletes everything the shard holds, its alarm too (a day past retention: books-retention.ts); this
   * instance forgets what it held. A shard dropped again deletes nothing more.
   */
  async drop(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.store.forget();
    this.events.forget();
    this.host.waiting.clear();
    this.host.publishing.published.clear();
    this.host.publishing.firstWaitingAt = null;
    this.alarmAt = null;
  }

  /** Publishes the counters now (an operator, a test); answers the D1 rows written. */
  async publishNow(): Promise<number> {
    return publish(this.host);
  }

  /**
   * Publishes, and writes the answers that waited too long. A failed publish is logged and tried again a
   * minute later: the counters it would have published are in the shard, and the next publish carries them.
   */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    flushAnswers(this.host);
    expireEvents(this.events, Date.now());
    // The alarm is set for the publish alone: it publishes when it fires, even if the clock reads earlier.
    if (nextPublish(this.host) !== null) {
      try {
        await publish(this.host);
      } catch (error) {
        logFailure(error, { step: "books.publish", shard: this.store.address() });
        this.alarmAt = undefined;
        await this.ctx.storage.setAlarm(Date.now() + PUBLISH_RETRY_MS);
        this.alarmAt = Date.now() + PUBLISH_RETRY_MS;
        return;
      }
    }
    await this.armAlarm();
  }
}
