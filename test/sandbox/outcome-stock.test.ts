/**
 * Sandbox-Outcome over inventory SKUs: a scripted issued line sells the codes its order reserved, as live
 * does, so the stock moves and the reconciliation finds the redeem in the codes table; a scripted failed
 * line gives its reserved codes back. Every outcome, with inventory lines alone and mixed with a sandbox
 * line, ends holding nothing and reconciles to 0 mismatches; a made-up pin is still named; and the object
 * dying between the sale and the stored redeem sells nothing twice and leaves every sold code in the
 * redeem of exactly one order. Live refuses the header as before: test/live/sandbox-off.test.ts.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { INVENTORY_SEAMS } from "../../src/inventory/seams";
import { armFault, clearFaults, firedFaults, type Fault } from "../../src/kernel/faults";
import { reconcile, type Mismatch } from "../../src/reconciliation/reconciliation";
import { balanceOf, call, ledgerSumOf, line, seedDemo } from "../helpers";
import {
  addCodes,
  addProduct,
  availableCodes,
  drainTimers,
  ended,
  expectOk,
  indexNow,
  ledgerOf,
  rewriteStoredOrder,
  storedOrder,
  uid,
} from "../order-helpers";
import { auditedClient } from "../reconciliation/reconciliation-helpers";

const start = Date.now() - 1_000;
const INV = "SO-INV";
const INV_B = "SO-INV-B";
const SANDBOX = "DEMO-US-RANGE";
const STOCK = 60;

beforeAll(async () => {
  await seedDemo();
  for (const sku of [INV, INV_B]) {
    await addProduct({ sku, productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
    await addCodes(sku, "10", STOCK);
  }
});

afterEach(() => clearFaults());

const inv = (quantity = 2) => line(INV, 10, quantity, "fixed");
const invB = () => line(INV_B, 10, 1, "fixed");
const sandbox = () => line(SANDBOX, 5, 1);

/** Creates the order with the header, confirms it and runs its timers until it has ended and is indexed. */
async function scripted(key: string, productList: unknown[], outcome?: string): Promise<string> {
  const created = expectOk(
    await call("POST", "/order/create", {
      key,
      body: { productList, wallet: "USD", reference: uid("so") },
      headers: outcome === undefined ? {} : { "sandbox-outcome": outcome },
    }),
  );
  const confirm = await call("PUT", "/order/confirm", { key, body: { orderId: created.id } });
  expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
  await drainTimers(created.id);
  await ended(created.id);
  await indexNow(created.id);
  return created.id;
}

/** The order's codes in the codes table, by status and SKU. */
async function codesOf(orderId: string): Promise<{ sku: string; pin: string; status: string }[]> {
  const { results } = await env.DB.prepare(`SELECT sku, pin, status FROM codes WHERE order_id = ?1 ORDER BY id`)
    .bind(orderId)
    .all<{ sku: string; pin: string; status: string }>();
  return results;
}

/** The pins the order's stored redeem holds per inventory SKU, sorted. */
async function redeemedPins(orderId: string): Promise<Record<string, string[]>> {
  const order = await storedOrder(orderId);
  return Object.fromEntries(
    order.lines
      .filter((line) => line.product.supplier === "inventory" && line.redeem !== null)
      .map((line) => [line.sku, [...line.redeem!.pins].sort()]),
  );
}

/** The reconciliation as test/reconciliation runs it: the file's span, no grace. */
async function mismatches(): Promise<Mismatch[]> {
  return (await reconcile(env, { createdFrom: start, createdTo: Date.now(), grace: 0 })).mismatches;
}

interface Case {
  name: string;
  outcome: string;
  lines: () => unknown[];
  ends: string;
  /** Codes each inventory SKU sells to the order; the rest of what it reserved is back on sale. */
  sold: Record<string, number>;
  /** How many lines fail and are refunded. */
  refunds: number;
}

const CASES: Case[] = [
  {
    name: "inventory",
    outcome: "successful",
    lines: () => [inv()],
    ends: "successful",
    sold: { [INV]: 2 },
    refunds: 0,
  },
  {
    name: "inventory and sandbox",
    outcome: "successful",
    lines: () => [inv(), sandbox()],
    ends: "successful",
    sold: { [INV]: 2 },
    refunds: 0,
  },
  { name: "inventory", outcome: "failed", lines: () => [inv()], ends: "failed", sold: { [INV]: 0 }, refunds: 1 },
  {
    name: "inventory and sandbox",
    outcome: "failed",
    lines: () => [inv(), sandbox()],
    ends: "failed",
    sold: { [INV]: 0 },
    refunds: 2,
  },
  {
    name: "two inventory SKUs",
    outcome: "partial",
    lines: () => [inv(), invB()],
    ends: "partial",
    sold: { [INV]: 2, [INV_B]: 0 },
    refunds: 1,
  },
  {
    name: "inventory, then sandbox (the sandbox line fails)",
    outcome: "partial",
    lines: () => [inv(), sandbox()],
    ends: "partial",
    sold: { [INV]: 2 },
    refunds: 1,
  },
  {
    name: "sandbox, then inventory (the inventory line fails)",
    outcome: "partial",
    lines: () => [sandbox(), inv()],
    ends: "partial",
    sold: { [INV]: 0 },
    refunds: 1,
  },
  { name: "inventory", outcome: "slow", lines: () => [inv()], ends: "successful", sold: { [INV]: 2 }, refunds: 0 },
  {
    name: "inventory and sandbox",
    outcome: "slow",
    lines: () => [inv(), sandbox()],
    ends: "successful",
    sold: { [INV]: 2 },
    refunds: 0,
  },
];

/**
 * What every ended order must show: its state, each inventory SKU's codes sold to it exactly its redeem
 * (real codes of the table, none made up), nothing left reserved, the stock down by what was sold, one
 * refund per failed line and a balance equal to its ledger.
 */
async function expectBooksOf(
  orderId: string,
  clientId: string,
  expected: Pick<Case, "ends" | "sold" | "refunds">,
  stockBefore: Record<string, number>,
  stockAfter?: Record<string, number>,
): Promise<void> {
  const after = stockAfter ?? (await stockNow());
  expect(await ended(orderId)).toBe(expected.ends);
  const codes = await codesOf(orderId);
  expect(codes.filter((code) => code.status !== "sold")).toEqual([]);
  const redeem = await redeemedPins(orderId);
  for (const [sku, sold] of Object.entries(expected.sold)) {
    const pins = codes.filter((code) => code.sku === sku).map((code) => code.pin);
    expect(pins, sku).toHaveLength(sold);
    expect(redeem[sku] ?? [], sku).toEqual([...pins].sort());
    for (const pin of pins) expect(pin).not.toMatch(/^SBX-/);
    expect(after[sku], sku).toBe(stockBefore[sku]! - sold);
  }
  const refunds = (await ledgerOf(clientId, "USD")).filter((entry) => entry.kind === "order_refund");
  expect(refunds.filter((entry) => entry.orderId === orderId)).toHaveLength(expected.refunds);
  expect(await balanceOf(clientId, "USD")).toBe(await ledgerSumOf(clientId, "USD"));
}

async function stockNow(): Promise<Record<string, number>> {
  return { [INV]: await availableCodes(INV, "10"), [INV_B]: await availableCodes(INV_B, "10") };
}

describe("Sandbox-Outcome on inventory SKUs", () => {
  it("every outcome, inventory lines alone and with a sandbox line, reconciles to 0 mismatches and moves stock as live", async () => {
    const client = await auditedClient({ USD: "1000" });
    const orders: { orderId: string; before: Record<string, number>; after: Record<string, number> }[] = [];
    for (const scriptedCase of CASES) {
      const before = await stockNow();
      const orderId = await scripted(client.key, scriptedCase.lines(), scriptedCase.outcome);
      orders.push({ orderId, before, after: await stockNow() });
    }
    const run = await reconcile(env, { createdFrom: start, createdTo: Date.now(), grace: 0 });
    expect(run.mismatches).toEqual([]);
    expect(run.complete).toBe(true);
    // One wallet-day, whose summaries agree: sealed without a drill into any order.
    expect(run.checked.days).toBe(1);
    expect(run.checked.sealedDays).toBe(1);
    expect(run.checked.orders).toBe(0);
    // Every code an issued inventory line sold was read against what the order's books say it delivered.
    const sold = CASES.reduce((sum, each) => sum + Object.values(each.sold).reduce((a, b) => a + b, 0), 0);
    expect(run.checked.soldCodes).toBe(sold);
    for (const [at, { orderId, before, after }] of orders.entries())
      await expectBooksOf(orderId, client.id, CASES[at]!, before, after);
  });

  it("a successful sandbox line still gets sandbox codes beside an inventory line's real ones", async () => {
    const client = await auditedClient({ USD: "1000" });
    const orderId = await scripted(client.key, [inv(1), sandbox()], "successful");
    const view = expectOk(await call("GET", `/order/get?orderId=${orderId}`, { key: client.key }));
    expect(view.redeem[SANDBOX].redeemPin[0]).toMatch(/^SBX-/);
    expect(view.redeem[INV].redeemPin).toEqual((await codesOf(orderId)).map((code) => code.pin));
  });

  it("a made-up pin in the redeem is named, on an order without a scripted outcome and on a scripted one", async () => {
    const client = await auditedClient({ USD: "1000" });
    const plain = await scripted(client.key, [inv(1)]);
    const withScript = await scripted(client.key, [inv(1), sandbox()], "successful");
    const ofOrder = async (orderId: string) =>
      (await mismatches())
        .filter((mismatch) => mismatch.orderId === orderId)
        .map((mismatch) => [mismatch.check, mismatch.problem]);
    for (const orderId of [plain, withScript]) {
      expect(await ofOrder(orderId)).toEqual([]);
      await rewriteStoredOrder(orderId, (doc) => {
        const tampered = doc.lines.find((line) => line.sku === INV)!;
        tampered.redeem!.pins = [...tampered.redeem!.pins, "MADE-UP-0001"];
        tampered.redeem!.links = [...tampered.redeem!.links, "https://redeem.example.com/MADE-UP-0001"];
        // As a supplier's made-up pin would be stored: with the change, whose books write carries it.
        doc.modifiedAt += 1;
      });
      await indexNow(orderId);
      expect(await ofOrder(orderId)).toEqual([
        ["codes_match_redeem", `a code of ${INV} in the order's redeem is not in the codes table`],
      ]);
    }
  });
});

/**
 * The object dies between the sale of a scripted line's codes and the stored redeem (the sale's answer
 * lost, or the release and end state never reached): the next processing run finds the codes sold and
 * gets the same ones, so each sold code is in the redeem of exactly one order and nothing is held.
 */
describe("Sandbox-Outcome on inventory SKUs, the object dying between the sale and the stored redeem", () => {
  const FAULTS: { seam: string; fault: Fault }[] = [
    { seam: INVENTORY_SEAMS.sell, fault: { when: "after", reset: true } },
    { seam: ORDER_SEAMS.supplierInventory, fault: { when: "after", reset: true } },
    { seam: ORDER_SEAMS.releaseCodes, fault: { when: "before", reset: true } },
    { seam: ORDER_SEAMS.releaseCodes, fault: { when: "after", reset: true } },
    { seam: INVENTORY_SEAMS.release, fault: { when: "after", reset: true } },
  ];
  const SCRIPTS: Case[] = [CASES[1]!, CASES[4]!, CASES[8]!];

  it.each(
    FAULTS.flatMap(({ seam, fault }) => SCRIPTS.map((each) => [seam, fault.when, each.outcome, fault, each] as const)),
  )(
    "%s fails %s, Sandbox-Outcome %s: the order ends as scripted with the codes sold once, and reconciles",
    async (seam, _when, _outcome, fault, scriptedCase) => {
      const client = await auditedClient({ USD: "1000" });
      const stock = await stockNow();
      armFault(seam, fault);
      const orderId = await scripted(client.key, scriptedCase.lines(), scriptedCase.outcome);
      expect(firedFaults()).toEqual([`${seam}:${fault.when}`]);
      await expectBooksOf(orderId, client.id, scriptedCase, stock);
      const named = (await mismatches()).filter((mismatch) => mismatch.clientId === client.id);
      expect(named).toEqual([]);
      // No code is sold to two orders, nor to one that does not hold it in its redeem.
      const twice = await env.DB.prepare(
        `SELECT pin FROM codes WHERE status = 'sold' GROUP BY pin HAVING COUNT(DISTINCT order_id) > 1`,
      ).all();
      expect(twice.results).toEqual([]);
    },
  );
});
