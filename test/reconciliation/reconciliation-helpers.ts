/**
 * What the reconciliation's tests share: a client topped up as an operator does it, a fresh start of the
 * stored passes, orders made and written to their books, the books' publish, and tampering at rest with a
 * wallet object's ledger or a books shard's rows.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { shardOf } from "../../src/books/books-writer";
import { dayOf } from "../../src/books/shard-rules";
import type { WalletObject } from "../../src/wallets/wallet-object";
import { admin } from "../admin-helpers";
import { addClient, confirmOrder, createOrder } from "../helpers";
import { ended, expectOk, indexNow, uid } from "../order-helpers";

/** A client whose wallets are topped up as an operator does it (audited), and its API key. */
export async function auditedClient(
  wallets: Record<string, string> = { USD: "1000" },
): Promise<{ id: string; key: string }> {
  const id = uid("rec");
  const key = await addClient(id, Object.fromEntries(Object.keys(wallets).map((currency) => [currency, "0"])));
  for (const [currency, amount] of Object.entries(wallets))
    expect(
      (
        await admin("POST", `/admin/wallets/${id}/${currency}/top-ups`, {
          amount,
          idempotencyKey: uid("top"),
          reason: "opening",
        })
      ).status,
    ).toBe(200);
  return { id, key };
}

/**
 * Starts the stored passes afresh from now: the feeds' checkpoint at the present, nothing standing, and
 * every wallet-day the books hold so far taken as sealed for good (the days of earlier tests, some checked
 * at a later `now`, would otherwise be due).
 */
export async function freshCheckpoint(): Promise<void> {
  const now = Date.now();
  const top = await env.DB.prepare(`SELECT max(id) AS id FROM audit_log`).first<{ id: number | null }>();
  await env.DB.batch([
    ...["reconciliation_checkpoint", "reconciliation_findings", "reconciliation_run", "reconciliation_days"].map(
      (table) => env.DB.prepare(`DELETE FROM ${table}`),
    ),
    env.DB.prepare(
      `INSERT INTO reconciliation_checkpoint (id, codes_at, audit_id, moves_at, started_at, finished_at)
       VALUES (1, ?1, ?2, ?1, ?1, ?1)`,
    ).bind(now, top?.id ?? 0),
    env.DB.prepare(
      `INSERT INTO reconciliation_days (client_id, currency, day, state, books_changes, first_seen_at, checked_at, verified)
       SELECT client_id, currency, day, 'sealed', SUM(changes), ?1, ?1, 3 FROM books_days GROUP BY client_id, day, currency`,
    ).bind(now),
  ]);
}

/** Creates (and, unless told otherwise, confirms) an order, waits for its end, and writes it to its books. */
export async function order(
  key: string,
  productList: unknown[],
  options: { wallet?: string; confirm?: boolean } = {},
): Promise<string> {
  const created = expectOk(
    await createOrder({ productList, wallet: options.wallet ?? "USD", reference: uid("rec") }, key),
  );
  if (options.confirm !== false) {
    expectOk(await confirmOrder(created.id, key));
    await ended(created.id);
  }
  // As the order's `index` timer would have by the time the reconciliation runs.
  await indexNow(created.id);
  return created.id;
}

/** The shard of a client's day (of one part), today's unless told. */
export function shard(clientId: string, day = dayOf(Date.now())) {
  return shardOf(env.BOOKS, { clientId, day, part: 0 });
}

/** Publishes a client's day of books now, as the shard's alarm does within the hour. */
export async function publish(clientId: string, day = dayOf(Date.now())): Promise<void> {
  await shard(clientId, day).publishNow();
}

/** Runs SQL inside a wallet object's own SQLite, its append-only triggers dropped: tampering at rest. */
export async function tamperWallet(stub: DurableObjectStub<WalletObject>, sql: string, ...bindings: unknown[]) {
  await runInDurableObject(stub, (_instance: WalletObject, state) => {
    state.storage.sql.exec(`DROP TRIGGER IF EXISTS ledger_no_delete`);
    state.storage.sql.exec(`DROP TRIGGER IF EXISTS ledger_no_update`);
    state.storage.sql.exec(sql, ...bindings);
  });
}

/** Runs SQL inside a books shard's SQLite (its rows, not its counters): tampering at rest. */
export async function tamperBooks(clientId: string, sql: string, ...bindings: unknown[]) {
  await runInDurableObject(shard(clientId), (_instance, state) => {
    state.storage.sql.exec(sql, ...bindings);
  });
}
