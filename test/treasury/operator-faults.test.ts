/**
 * Every fault seam of the operator's wallet postings (src/wallets/seams.ts), failed before and after its
 * call, then retried as a client would with the same idempotency key: the balance equals the ledger sum,
 * the posting is in the ledger once, and its audit row is written once.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults, firedFaults, type FaultWhen } from "../../src/kernel/faults";
import { adjustmentKey, topUpKey } from "../../src/wallets/ledger-keys";
import { OPERATOR_POSTING_SEAMS, type WalletSeam } from "../../src/wallets/seams";
import { addClient, wallet } from "../helpers";
import { uid } from "../order-helpers";
import { admin } from "../admin-helpers";

const CLIENT = "faulty";

beforeAll(async () => {
  await addClient(CLIENT);
  const opened = await admin("POST", `/admin/wallets/${CLIENT}/USD/top-ups`, {
    amount: "100",
    idempotencyKey: "opening",
    reason: "open",
  });
  expect(opened.status).toBe(200);
});

afterEach(() => clearFaults());

async function auditRows(seq: number, action: string): Promise<number> {
  const row = await env.DB.prepare(
    `SELECT COUNT(*) AS n FROM audit_log WHERE target = ?1 AND action = ?2 AND json_extract(details, '$.seq') = ?3`,
  )
    .bind(`wallet:${CLIENT}:USD`, action, seq)
    .first<{ n: number }>();
  return row!.n;
}

const OPERATIONS = [
  { name: "top-up", path: "top-ups", amount: "7.25", key: topUpKey, action: "wallet.top_up" },
  { name: "adjustment", path: "adjustments", amount: "-3.5", key: adjustmentKey, action: "wallet.adjustment" },
] as const;

const WHEN: FaultWhen[] = ["before", "after"];

// Every seam listed as data gets a case: a seam added without one fails here, not in production.
const cases = OPERATIONS.flatMap((operation) =>
  OPERATOR_POSTING_SEAMS.flatMap((seam: WalletSeam) => WHEN.map((when) => ({ operation, seam, when }))),
);

describe("operator wallet postings under faults", () => {
  it("covers every wallet seam", () => {
    expect(new Set(cases.map((c) => c.seam))).toEqual(new Set(OPERATOR_POSTING_SEAMS));
  });

  it.each(cases.map((c) => [c.operation.name, c.seam, c.when, c] as const))(
    "%s, %s fails %s: 500, then the retry posts once and audits once",
    async (_n, seam, when, c) => {
      const idempotencyKey = uid("fk");
      const body = { amount: c.operation.amount, idempotencyKey, reason: `fault ${seam} ${when}` };
      const before = await wallet(CLIENT, "USD").audit();
      armFault(seam, { when });
      const failed = await admin("POST", `/admin/wallets/${CLIENT}/USD/${c.operation.path}`, body);
      expect(firedFaults()).toEqual([`${seam}:${when}`]);
      expect(failed.status).toBe(500);
      const retried = await admin("POST", `/admin/wallets/${CLIENT}/USD/${c.operation.path}`, body);
      expect(retried.status).toBe(200);
      // The posting reached the wallet on the failed call unless the fault stopped the wallet call itself.
      expect(retried.body.data.replayed).toBe(!(seam === "wallet.operator.post" && when === "before"));
      const entries = (await wallet(CLIENT, "USD").entries(0, 10_000)).filter(
        (entry) => entry.key === c.operation.key(idempotencyKey),
      );
      expect(entries).toHaveLength(1);
      expect(await auditRows(entries[0]!.seq, c.operation.action)).toBe(1);
      const after = await wallet(CLIENT, "USD").audit();
      expect(after.balance).toBe(after.ledgerSum);
      expect(after.entries).toBe(before.entries + 1);
      expect(retried.body.data.balance).toBe(Number(after.balance));
    },
  );
});
