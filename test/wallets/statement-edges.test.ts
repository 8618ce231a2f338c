/**
 * A statement's edges, to the millisecond: `from` is inclusive, so a movement made at exactly `from` is in
 * the period and not in the opening balance (the balance just before `from`), and the closing balance is
 * the opening balance plus the period's movements, in JSON and in CSV alike.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../csv-helpers";
import { admin } from "../admin-helpers";
import { call } from "../helpers";
import { uid } from "../order-helpers";

let key: string;
let clientId: string;

beforeAll(async () => {
  clientId = uid("edges");
  const created = await admin("POST", "/admin/clients", { id: clientId, name: clientId });
  key = created.body.data.apiKey as string;
});

const topUp = async (amount: string) => {
  const answer = await admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
    amount,
    idempotencyKey: uid("k"),
    reason: "edge",
  });
  expect(answer.status).toBe(200);
  return answer.body.data.entry as { createdAt: number; balanceAfter: number };
};

describe("a statement from the very millisecond of a movement", () => {
  it("opens before it, lists it, and closes after it", async () => {
    await topUp("100");
    // A millisecond apart at least, so that the second's time is its own.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const edge = await topUp("25.5");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const from = edge.createdAt;
    const to = from + 1;
    const json = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, {
      key,
      headers: { accept: "application/json" },
    });
    expect(json.status).toBe(200);
    expect(json.body.data).toMatchObject({ openingBalance: 100, closingBalance: 125.5 });
    expect(json.body.data.movements).toMatchObject([{ kind: "top_up", amount: 25.5, createdAt: from }]);

    const csv = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, { key });
    const rows = parseCsv(csv.body as string);
    const byKind = (kind: string) => rows.find((row) => row[1] === kind)!;
    expect(byKind("opening_balance").at(-1)).toBe("100");
    expect(byKind("closing_balance").at(-1)).toBe("125.5");

    // One millisecond later, the movement is before the period: in the opening balance, not listed.
    const after = await call("GET", `/wallets/USD/statement?from=${from + 1}&to=${to + 1}`, {
      key,
      headers: { accept: "application/json" },
    });
    expect(after.body.data).toMatchObject({ openingBalance: 125.5, closingBalance: 125.5, movements: [] });
  });
});
