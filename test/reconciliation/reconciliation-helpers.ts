/**
 * What the reconciliation's tests share: a client topped up as an operator does it, a fresh checkpoint, and
 * the orders the runs have left over.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { admin } from "../admin-helpers";
import { addClient } from "../helpers";
import { uid } from "../order-helpers";

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
 * Starts the stored runs afresh from now: the checkpoint at the present, nothing standing or left over
 * (the runs of earlier tests, some made at a later `now`, would otherwise carry over).
 */
export async function freshCheckpoint(): Promise<void> {
  const now = Date.now();
  const top = await env.DB.prepare(`SELECT max(id) AS id FROM audit_log`).first<{ id: number | null }>();
  await env.DB.batch([
    ...[
      "reconciliation_checkpoint",
      "reconciliation_findings",
      "reconciliation_deferred",
      "reconciliation_run",
      "reconciliation_wallets_left",
    ].map((table) => env.DB.prepare(`DELETE FROM ${table}`)),
    env.DB.prepare(
      `INSERT INTO reconciliation_checkpoint (id, orders_at, codes_at, audit_id, moves_at, started_at, finished_at)
       VALUES (1, ?1, ?1, ?2, ?1, ?1, ?1)`,
    ).bind(now, top?.id ?? 0),
  ]);
}

/** The orders the runs have left over, with since when. */
export async function deferred(): Promise<Map<string, number>> {
  const { results } = await env.DB.prepare(`SELECT order_id, since FROM reconciliation_deferred`).all<{
    order_id: string;
    since: number;
  }>();
  return new Map(results.map((row) => [row.order_id, row.since]));
}
