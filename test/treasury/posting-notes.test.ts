/**
 * Two texts on an operator's posting (docs/operator-api.md, Dual control): the internal `reason` stays
 * inside (the operators' ledger, the audit log, the console), and only the optional client-facing `note`
 * is shown to the client, in its ledger and its statement, whichever way the posting was made (alone, or
 * approved by a second person).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, madeOperator } from "../admin-helpers";
import { call } from "../helpers";
import { uid } from "../order-helpers";

const REASON = "Chargeback dispute #4471: customer is a known fraud risk, keep an eye";

let clientId: string;
let key: string;

beforeAll(async () => {
  clientId = uid("notes");
  const created = await admin("POST", "/admin/clients", { id: clientId, name: clientId });
  key = created.body.data.apiKey as string;
});

async function books(): Promise<string> {
  const ledger = await call("GET", "/wallets/USD/ledger", { key });
  expect(ledger.status).toBe(200);
  const json = await call("GET", "/wallets/USD/statement?from=0&to=9999999999999", {
    key,
    headers: { accept: "application/json" },
  });
  const csv = await call("GET", "/wallets/USD/statement?from=0&to=9999999999999", { key });
  return JSON.stringify(ledger.body) + JSON.stringify(json.body) + String(csv.body);
}

describe("what the client sees of an operator's posting", () => {
  it("never the internal reason; the note when one was written", async () => {
    const silent = await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      amount: "100",
      idempotencyKey: uid("k"),
      reason: REASON,
    });
    expect(silent.status, JSON.stringify(silent.body)).toBe(200);
    const ledger = await call("GET", "/wallets/USD/ledger", { key });
    expect(ledger.body.data.movements).toMatchObject([{ kind: "top_up", amount: 100, note: null }]);
    expect(await books()).not.toContain("Chargeback");

    const noted = await admin("POST", `/admin/wallets/${clientId}/USD/adjustments`, {
      amount: "-10",
      idempotencyKey: uid("k"),
      reason: REASON,
      note: "Correction of the 24 Nov top-up",
    });
    expect(noted.status, JSON.stringify(noted.body)).toBe(200);
    // The operator sees both, side by side.
    expect(noted.body.data.entry).toMatchObject({ reason: REASON, note: "Correction of the 24 Nov top-up" });
    const after = await call("GET", "/wallets/USD/ledger", { key });
    expect(after.body.data.movements.at(-1)).toMatchObject({
      kind: "adjustment",
      note: "Correction of the 24 Nov top-up",
    });
    const shown = await books();
    expect(shown).toContain("Correction of the 24 Nov top-up");
    expect(shown).not.toContain("Chargeback");
  });

  it("a posting approved by a second person carries the note asked with it, and not the reason", async () => {
    await admin("PUT", "/admin/approval-limits/USD", { limit: 50 });
    const rita = await madeOperator("Notes Rita", "operator", 10);
    const sam = await madeOperator("Notes Sam", "operator", 5);
    const asked = await admin(
      "POST",
      `/admin/wallets/${clientId}/USD/top-ups`,
      { amount: "500", idempotencyKey: uid("k"), reason: REASON, note: "Bank transfer received" },
      { token: rita.token },
    );
    expect(asked.body.message).toBe("Posting awaits approval");
    expect(asked.body.data.request).toMatchObject({ reason: REASON, note: "Bank transfer received" });
    const approved = await admin("POST", `/admin/posting-requests/${asked.body.data.request.id}/approve`, undefined, {
      token: sam.token,
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const last = (await call("GET", "/wallets/USD/ledger", { key })).body.data.movements.at(-1);
    expect(last).toMatchObject({ kind: "top_up", amount: 500, note: "Bank transfer received" });
    expect(await books()).not.toContain("Chargeback");
  });

  it("refuses a note longer than a statement line takes", async () => {
    const long = await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
      amount: "1",
      idempotencyKey: uid("k"),
      reason: "r",
      note: "x".repeat(201),
    });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe("invalid_request_body");
  });
});
