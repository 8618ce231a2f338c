/**
 * The pure rules of an order's timers (src/orders/order-timers.ts) and of its stored document's versions
 * (upgradeDocument in src/orders/order-store.ts): what the store writes after each step.
 */
import { describe, expect, it } from "vitest";
import {
  DOCUMENT_MIGRATIONS,
  ORDER_SCHEMA_VERSION,
  upgradeDocument,
  type DocumentMigration,
  type StoredDocument,
} from "../../src/orders/order-store";
import { afterFailure, afterRun, scheduled, without, worstFailing, type Timer } from "../../src/orders/order-timers";
import { timerRetryDelayMs } from "../../src/orders/timer-policy";

const timer = (kind: Timer["kind"], dueAt: number, failures = 0): Timer => ({
  kind,
  dueAt,
  failures,
  lastError: failures > 0 ? "boom" : null,
});

describe("order timers", () => {
  it("keep one due time per kind, in due order (then by kind), and a rescheduled failing timer keeps its count", () => {
    let timers = scheduled([], "expire", 600);
    timers = scheduled(timers, "settle", 5);
    timers = scheduled(timers, "process", 5);
    expect(timers.map((t) => t.kind)).toEqual(["process", "settle", "expire"]);
    timers = scheduled([timer("process", 10, 2)], "process", 20);
    expect(timers).toEqual([{ kind: "process", dueAt: 20, failures: 2, lastError: "boom" }]);
    expect(without(timers, "process")).toEqual([]);
  });

  it("a timer that ran goes, unless it was set again meanwhile: then it stays, no longer failing", () => {
    const ran = timer("process", 10, 1);
    expect(afterRun([ran, timer("expire", 600)], ran)).toEqual([timer("expire", 600)]);
    expect(afterRun([timer("process", 30, 1)], ran)).toEqual([
      { kind: "process", dueAt: 30, failures: 0, lastError: null },
    ]);
    expect(afterRun([timer("process", 30)], ran)).toBeNull();
    expect(afterRun([], ran)).toBeNull();
  });

  it("a failed run is stored again with one more failure, due after that count's retry delay, even if its handler had cleared it", () => {
    const { timers, failed } = afterFailure([timer("process", 10, 2), timer("expire", 600_000)], "process", 50, "down");
    expect(failed).toEqual({ kind: "process", dueAt: 50 + timerRetryDelayMs(3), failures: 3, lastError: "down" });
    expect(timerRetryDelayMs(3)).toBe(8_000);
    expect(timers.map((t) => t.kind)).toEqual(["process", "expire"]);
    expect(afterFailure([], "outbox", 7, "queue").timers).toEqual([
      { kind: "outbox", dueAt: 7 + 2_000, failures: 1, lastError: "queue" },
    ]);
  });

  it("the worst failing timer is the one with most failures past the threshold; the report timer never counts", () => {
    expect(worstFailing([timer("process", 10, 2)], 3)).toBeNull();
    expect(worstFailing([timer("outbox", 10, 3), timer("process", 5, 4), timer("report", 1, 9)], 3)?.kind).toBe(
      "process",
    );
    expect(worstFailing([timer("report", 1, 9)], 3)).toBeNull();
  });
});

describe("the stored document's versions", () => {
  const doc = (version: number) =>
    ({ version, order: null, timers: [], outboxCount: 0, reported: null }) as StoredDocument;
  const migration = (version: number, up: DocumentMigration["up"]): DocumentMigration => ({
    version,
    description: `to ${version}`,
    up,
  });

  it("a document of the current version is read as it is", () => {
    expect(ORDER_SCHEMA_VERSION).toBe(DOCUMENT_MIGRATIONS[DOCUMENT_MIGRATIONS.length - 1]!.version);
    expect(upgradeDocument(doc(ORDER_SCHEMA_VERSION))).toEqual(doc(ORDER_SCHEMA_VERSION));
  });

  it("an older document passes through each migration in order and ends at the last version", () => {
    const seen: number[] = [];
    const migrations = [
      migration(3, (d) => (seen.push(d.version), d)),
      migration(4, (d) => (seen.push(d.version), { ...d, outboxCount: d.outboxCount + 1 })),
      migration(5, (d) => (seen.push(d.version), { ...d, outboxCount: d.outboxCount * 10 })),
    ];
    expect(upgradeDocument(doc(3), migrations)).toEqual({ ...doc(5), outboxCount: 10 });
    expect(seen).toEqual([3, 4]);
  });

  it("a document with no migration to the next version is refused, not read as if it were current", () => {
    const gapped = [migration(3, (d) => d), migration(5, (d) => d)];
    expect(() => upgradeDocument(doc(3), gapped)).toThrow(/no migration to 4/);
  });
});
