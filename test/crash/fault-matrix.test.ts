/**
 * The fault-injection suite: every operation of an order's life, failed at each of its I/O seams in turn
 * (before the call, after it with the reply lost, and each with the order object's memory reset and the
 * object evicted), then left to what really follows a fault: the client retries what answered 500, the
 * platform retries an alarm that threw, and the order's timers run until it is at rest. A seam an
 * operation passes more than once is failed at each of its calls in turn: the first (skip 0), then the
 * second (skip 1), and so on until the operation no longer reaches that many calls (at most MAX_SKIP + 1).
 * After every run the crash-safety invariants are checked:
 *
 * - a wallet's balance equals the sum of its ledger and never went below zero, in each object a wallet
 *   has been (a wallet moved to another region is a new object): the old one holds nothing, and every
 *   transfer out of it (the move, and each credit it passed on) is in its successor once, for the same
 *   amount: the money is never in both objects, nor in neither, once retries and timers have run;
 * - an order is charged exactly once iff it was confirmed, refunded exactly its failed lines, and a
 *   rejected order is voided, owes nothing and can never be charged later;
 * - a code is held by at most one order, an order holds exactly what its open lines need (and no code of
 *   a SKU it has no line for) and nothing once done, and every sold code is in the redeem of exactly its
 *   order;
 * - no timer is dropped: an order not at rest has the timer that moves it on, an order at rest has none,
 *   and stored timers always have an alarm armed;
 * - once the indexer has run, an order that moved money has its row in the order index, with its state
 *   and amounts;
 * - one webhook event per stored transition, each handed to the queue; every delivery that reaches the
 *   receiver verifies with the client's secret (the `standardwebhooks` library), and every event handed
 *   to the queue is delivered.
 *
 * The invariants are checked by test/crash/fault-invariants.ts, the clients, calls, alarms and outside
 * parties are test/crash/fault-harness.ts; this file is the table of operations and their seams.
 *
 * The seams are data (src/orders/seams.ts, src/inventory/seams.ts, src/wallets/seams.ts,
 * src/sandbox/seams.ts): a seam without a case here fails the coverage test, so a new I/O call cannot
 * arrive without its fault case.
 */
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runInDurableObject } from "cloudflare:test";
import { ALL_INVENTORY_SEAMS } from "../../src/inventory/seams";
import { armFault, clearFaults, firedFaults, type Fault, type FaultWhen } from "../../src/kernel/faults";
import { OrderStore } from "../../src/orders/order-store";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { Money } from "../../src/pricing/money";
import { sandboxTopUpKey, topUpKey } from "../../src/wallets/ledger-keys";
import { ALL_SANDBOX_SEAMS } from "../../src/sandbox/seams";
import { ALL_WALLET_SEAMS, OPERATOR_POSTING_SEAMS, WALLET_MOVE_SEAMS } from "../../src/wallets/seams";
import { admin } from "../admin-helpers";
import { call, line, orderStub, wallet } from "../helpers";
import { backdateExpiry, rewriteStoredOrder } from "../order-helpers";
import {
  addressOfKey,
  asClient,
  confirmAsClient,
  confirmOrder,
  createOrder,
  drain,
  fireAlarm,
  freshClient,
  handedToQueue,
  hooks,
  IN_PROGRESS_ASKS,
  inspect,
  maybeEvict,
  objectOrderId,
  setUpOutsideParties,
  upstreamAsks,
  webhookUrlOf,
} from "./fault-harness";
import { violations, type Outcome } from "./fault-invariants";

/** Skips tried per (operation, seam, variant) beyond the first call: calls 1 to MAX_SKIP + 1 fail in turn. */
const MAX_SKIP = 7;

interface Variant {
  when: FaultWhen;
  reset: boolean;
}
const VARIANTS: Variant[] = [
  { when: "before", reset: false },
  { when: "after", reset: false },
  { when: "before", reset: true },
  { when: "after", reset: true },
];

/** One kind of order used by the scenarios. */
const INVENTORY_LINE = () => line("DEMO-EU-FIXED", 10, 2);
const SANDBOX_LINE = () => line("DEMO-US-RANGE", 5, 1);

async function placeOrder(key: string, clientId: string, productList: unknown[], reference = crypto.randomUUID()) {
  const created = await asClient(() =>
    createOrder({ productList, reference, webhookUrl: webhookUrlOf(clientId) }, key),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: created.body.data.id as string, reference, clientId };
}

/** Where the move scenarios move a client's wallets. */
const MOVE_REGION = "apac";

function moveWallets(clientId: string) {
  return admin("POST", `/admin/clients/${clientId}/region`, { region: MOVE_REGION });
}

/** Waits until the processing that confirm started has run and failed once (its timer is stored again). */
async function waitForTimerRun(orderId: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const stored = await runInDurableObject(orderStub(orderId), (_instance, state) =>
      new OrderStore(state.storage).timers(),
    );
    if (stored.some((timer) => timer.kind === "process" && timer.failures > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${orderId}: processing never failed`);
}

/** The stuck list's row of the order, if any. */
async function stuckRow(orderId: string): Promise<{ timer: string; skus: string[] } | undefined> {
  const stuck = await admin("GET", "/admin/orders/stuck?limit=500");
  return (stuck.body.data.orders as { orderId: string; timer: string; skus: string[] }[]).find(
    (row) => row.orderId === orderId,
  );
}

/** What a scenario's steps are given: its client, the order it placed (or will create) and the fault. */
interface Run {
  clientId: string;
  key: string;
  reference: string;
  /** The placed order's id, or the id its create will have (the object is named by client and reference). */
  orderId: string;
  seam: string;
  fault: Fault;
}

/**
 * A scenario: an operation, the seams it passes through, and its steps, which the runner (runScenario)
 * takes in turn: a fresh client; the order placed (`order`); `before`; the fault armed at the seam; `act`,
 * the operation it fails; the order object evicted when the fault resets it (unless `evict` is false);
 * `after`, what follows the fault (a client's retry); the order's timers run until it is at rest (unless
 * the operation is `orderless`); `settled`, checks of the end. The
 * outcome checked is the order in the state `expect` names, unless `outcome` says otherwise.
 */
interface Scenario {
  name: string;
  seams: readonly string[];
  /** The client's USD funds (1000 unless given). */
  funds?: string;
  /** The lines of the order placed before the fault; none: the operation makes the order, or none. */
  order?: () => unknown[];
  before?: (run: Run) => Promise<unknown>;
  act: (run: Run) => Promise<unknown>;
  /** The order object is not evicted after a fault that resets (the fault is not in the order's object). */
  evict?: false;
  /** The operation involves no order: nothing is evicted or drained. */
  orderless?: true;
  after?: (run: Run) => Promise<void>;
  settled?: (run: Run) => Promise<void>;
  /** The order's end state (successful unless given). */
  expect?: string;
  /** What the wallet must hold at the end, where the scenario knows it. */
  total?: (run: Run) => Promise<string> | string;
  /** The outcome to check, where it is not the one order in its `expect` state. */
  outcome?: (run: Run) => Outcome;
}

/** A create of `productList` under the run's reference, to its client's receiver. */
const createOf =
  (productList: () => unknown[], webhook = true) =>
  ({ clientId, key, reference }: Run) =>
    createOrder(
      { productList: productList(), reference, ...(webhook ? { webhookUrl: webhookUrlOf(clientId) } : {}) },
      key,
    );

/** The same create retried as a client would, until it is taken. */
const createdAsClient =
  (productList: () => unknown[]) =>
  async (run: Run): Promise<void> => {
    const created = await asClient(() => createOf(productList)(run));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  };

const confirmOnce = ({ orderId, key }: Run) => confirmOrder(orderId, key);
const confirmed = ({ orderId, key }: Run) => confirmAsClient(orderId, key);
/** A confirm retried after a 500: taken (200), or already taken by the attempt whose answer was lost (409). */
const confirmRetried = async ({ orderId, key }: Run): Promise<void> => {
  const retried = await asClient(() => confirmOrder(orderId, key));
  expect([200, 409], JSON.stringify(retried.body)).toContain(retried.status);
};
/** A confirm after the order was rejected: 419, and nothing charged (the void refuses any charge). */
const lateConfirmRefused = async ({ orderId, key }: Run): Promise<void> => {
  expect((await confirmOrder(orderId, key)).status).toBe(419);
};
const moved = async ({ clientId }: Run): Promise<void> => {
  const answer = await asClient(() => moveWallets(clientId));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
};
/** The wallet's funds less the order's charge (plus what a failed line gave back). */
const lessCharge =
  (refunded = 0) =>
  async ({ orderId }: Run): Promise<string> =>
    new Money(1000)
      .minus((await inspect(orderId)).order!.charge)
      .plus(refunded)
      .toFixed();
/** A refused create: no order, and whatever its attempts held given back. */
const refusedCreate = ({ clientId, orderId }: Run): Outcome => ({
  clientId,
  currency: "USD",
  orderIds: [],
  refusedOrderIds: [orderId],
  expect: {},
});
const noOrder = ({ clientId }: Run): Outcome => ({ clientId, currency: "USD", orderIds: [], expect: {} });

async function runScenario(scenario: Scenario, seam: string, fault: Fault): Promise<Outcome> {
  const { clientId, key } = await freshClient(scenario.funds);
  const reference = crypto.randomUUID();
  const orderId =
    scenario.order === undefined
      ? await objectOrderId(clientId, reference)
      : (await placeOrder(key, clientId, scenario.order(), reference)).orderId;
  const run: Run = { clientId, key, reference, orderId, seam, fault };
  // The wallet's end, where the scenario knows it, is reckoned from the order as placed.
  const total = await scenario.total?.(run);
  await scenario.before?.(run);
  armFault(seam, fault);
  await scenario.act(run);
  if (scenario.evict !== false && scenario.orderless !== true) await maybeEvict(orderId, fault);
  await scenario.after?.(run);
  if (scenario.orderless !== true) await drain(orderId);
  await scenario.settled?.(run);
  if (scenario.outcome !== undefined) return scenario.outcome(run);
  return {
    clientId,
    currency: "USD",
    orderIds: [orderId],
    expect: { [orderId]: scenario.expect ?? "successful" },
    ...(total !== undefined ? { total } : {}),
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: "create",
    seams: [ORDER_SEAMS.setAlarm, ORDER_SEAMS.reserveCodes, "inventory.reserve", ORDER_SEAMS.walletHold],
    act: createOf(() => [INVENTORY_LINE(), SANDBOX_LINE()]),
    after: async (run) => {
      await createdAsClient(() => [INVENTORY_LINE(), SANDBOX_LINE()])(run);
      await confirmed(run);
    },
  },
  {
    name: "create of an order that holds no codes",
    seams: [ORDER_SEAMS.walletBalance, ORDER_SEAMS.setAlarm],
    act: createOf(() => [SANDBOX_LINE()]),
    after: async (run) => {
      await createdAsClient(() => [SANDBOX_LINE()])(run);
      await confirmed(run);
    },
  },
  {
    name: "create refused for its balance",
    // Refused at its hold, before any code is reserved: what it reads then is whether the stock is short.
    seams: [ORDER_SEAMS.reserveCodes, "inventory.reserve"],
    funds: "1",
    act: createOf(() => [INVENTORY_LINE()], false),
    // Nobody retries after the 400: whatever the failed attempt left is the expiry timer's to give back.
    after: async (run) => {
      const refused = await asClient(() => createOf(() => [INVENTORY_LINE()], false)(run));
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    },
    outcome: refusedCreate,
  },
  {
    name: "create refused for stock after its hold",
    seams: [ORDER_SEAMS.walletRelease],
    // A SKU with no codes: the hold stands, the reservation finds the stock short.
    act: createOf(() => [line("DEMO-US-SOLDOUT", 10, 1)], false),
    after: async (run) => {
      // out_of_stock is a 500 too: the client retries only a server_error.
      let refused = await createOf(() => [line("DEMO-US-SOLDOUT", 10, 1)], false)(run);
      for (let tries = 1; refused.body.code === "server_error" && tries < 4; tries += 1)
        refused = await createOf(() => [line("DEMO-US-SOLDOUT", 10, 1)], false)(run);
      expect(refused.body.code, JSON.stringify(refused.body)).toBe("out_of_stock");
    },
    outcome: refusedCreate,
  },
  {
    name: "create retried with another body",
    seams: [ORDER_SEAMS.releaseCodes, "inventory.release"],
    // The first attempt holds and reserves an inventory code, and is cut off before it stores the order.
    before: async (run) => {
      armFault(ORDER_SEAMS.reserveCodes, { when: "after" });
      expect((await createOf(() => [INVENTORY_LINE()])(run)).status).toBe(500);
    },
    // The client sends the reference again with another body: what the first attempt held goes back.
    act: createOf(() => [SANDBOX_LINE()]),
    after: async (run) => {
      await createdAsClient(() => [SANDBOX_LINE()])(run);
      await confirmed(run);
    },
  },
  {
    name: "confirm",
    seams: [ORDER_SEAMS.walletCharge, ORDER_SEAMS.setAlarm, ORDER_SEAMS.queueSend],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    act: confirmOnce,
    after: confirmRetried,
  },
  {
    name: "settle a confirm cut off after the charge (nobody retries)",
    seams: [ORDER_SEAMS.chargeLookup],
    order: () => [SANDBOX_LINE()],
    before: async (run) => {
      armFault(ORDER_SEAMS.walletCharge, { when: "after" });
      expect((await confirmOnce(run)).status).toBe(500);
    },
    act: async () => undefined,
  },
  {
    name: "processing an inventory line",
    seams: [ORDER_SEAMS.supplierInventory, "inventory.sell", ORDER_SEAMS.releaseCodes, "inventory.release"],
    order: () => [INVENTORY_LINE()],
    act: confirmed,
  },
  {
    name: "writing the order's row to its client's books",
    // The order's one write (test/crash/books-faults.test.ts has the books' own seams); D1's order index is
    // no longer written, so its seam is gone.
    seams: [ORDER_SEAMS.booksWrite],
    order: () => [SANDBOX_LINE()],
    // The created order's row (its index timer is the first due), then the end state's: each passes the seam.
    act: ({ orderId }) => fireAlarm(orderId),
    after: confirmed,
  },
  {
    name: "processing a sandbox line",
    seams: [ORDER_SEAMS.supplierSandbox],
    order: () => [SANDBOX_LINE()],
    act: confirmed,
  },
  {
    name: "processing an upstream line",
    seams: [ORDER_SEAMS.supplierUpstream],
    order: () => [line("CRASH-UPSTREAM", 20, 2)],
    act: confirmed,
  },
  {
    // An outcome that stays unknown ("in progress") past its budget: the line is on the stuck list, is
    // asked again with the same key and never refunded, and leaves the list when the codes arrive.
    name: "an upstream line of unknown outcome past its budget",
    seams: [ORDER_SEAMS.supplierUpstream, ORDER_SEAMS.timerReport],
    order: () => [line("CRASH-UPSTREAM-SLOW", 20, 1)],
    act: confirmed,
    after: async ({ orderId }) => {
      // Until an ask has left the line unknown; at least once, as fireAlarm waits for the run confirm started.
      for (
        let run = 0;
        run === 0 || (run < 10 && typeof (await inspect(orderId)).order?.lines[0]?.unknownSince !== "number");
        run += 1
      )
        await fireAlarm(orderId);
      const before = (await inspect(orderId)).order!;
      expect(before.state).toBe("processing");
      expect(before.lines[0]).toMatchObject({ status: "pending", refunded: "0" });
      // As if it had been unknown for longer than the budget (60 s in the test config).
      await rewriteStoredOrder(orderId, (doc) => (doc.lines[0]!.unknownSince = Date.now() - 61_000), {
        process: Date.now(),
      });
      if ((upstreamAsks.get(`${orderId}:CRASH-UPSTREAM-SLOW`) ?? 0) < IN_PROGRESS_ASKS) {
        // Another ask still answers "in progress": the order is listed, unrefunded.
        expect(await fireAlarm(orderId)).toBe(true);
        const listed = await inspect(orderId);
        if (
          listed.order!.lines[0]!.status === "pending" &&
          !firedFaults().includes(`${ORDER_SEAMS.timerReport}:before`)
        ) {
          expect(await stuckRow(orderId)).toMatchObject({ timer: "supplier", skus: ["CRASH-UPSTREAM-SLOW"] });
        }
      }
    },
    settled: async ({ orderId }) => {
      expect(upstreamAsks.get(`${orderId}:CRASH-UPSTREAM-SLOW`)).toBeGreaterThan(IN_PROGRESS_ASKS);
      expect(await stuckRow(orderId)).toBeUndefined();
    },
  },
  {
    name: "refunding a failed line",
    seams: [ORDER_SEAMS.walletRefund],
    order: () => [line("DEMO-US-FAILING", 7, 1), SANDBOX_LINE()],
    act: confirmed,
    expect: "partial",
  },
  {
    name: "expiry",
    seams: [
      ORDER_SEAMS.releaseCodes,
      "inventory.release",
      ORDER_SEAMS.walletVoid,
      ORDER_SEAMS.setAlarm,
      ORDER_SEAMS.queueSend,
    ],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    // expiresAt passes; the expiry timer is the order's earliest, so running the alarm now is its expiry.
    before: ({ orderId }) => backdateExpiry(orderId),
    act: ({ orderId }) => fireAlarm(orderId),
    settled: lateConfirmRefused,
    expect: "rejected",
  },
  {
    name: "reporting a failing timer",
    seams: [ORDER_SEAMS.timerReport],
    order: () => [SANDBOX_LINE()],
    // The supplier fails 3 times, so the 3rd failure is reported; the report itself fails.
    before: async () => armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 3 }),
    act: confirmed,
    settled: async ({ orderId }) => {
      const stuck = await admin("GET", "/admin/orders/stuck?limit=500");
      expect(stuck.body.data.orders.map((o: { orderId: string }) => o.orderId)).not.toContain(orderId);
    },
  },
  {
    name: "expire now (sandbox)",
    seams: [
      ORDER_SEAMS.setAlarm,
      ORDER_SEAMS.releaseCodes,
      "inventory.release",
      ORDER_SEAMS.walletVoid,
      ORDER_SEAMS.queueSend,
    ],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    act: (run) => expireNow(run),
    // The client retries a 500; a retry after a lost answer finds the order rejected.
    after: async (run) => {
      const retried = await asClient(() => expireNow(run));
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.data.state).toBe("rejected");
    },
    settled: lateConfirmRefused,
    expect: "rejected",
  },
  {
    // The operator moves the client's wallet to another region while an order holds part of it; the
    // order is confirmed afterwards, against the old wallet it was created with.
    name: "moving a client's wallet with an order open",
    seams: Object.values(WALLET_MOVE_SEAMS),
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    act: ({ clientId }) => moveWallets(clientId),
    evict: false,
    after: async (run) => {
      await moved(run);
      const row = await env.DB.prepare(`SELECT generation, region, moving_to FROM wallets WHERE client_id = ?1`)
        .bind(run.clientId)
        .first();
      expect(row).toEqual({ generation: 1, region: MOVE_REGION, moving_to: null });
      await confirmed(run);
    },
    total: lessCharge(),
  },
  {
    // The move is cut off with the money in transit (the old wallet moved out, the new one has nothing
    // yet); the order's charge meets the old wallet, delivers the transfer and lands at the new one.
    name: "confirm meeting a wallet moved, its transfer in transit",
    seams: [ORDER_SEAMS.walletMoveIn, ORDER_SEAMS.walletCharge],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    before: async ({ clientId }) => {
      armFault(WALLET_MOVE_SEAMS.moveIn, { when: "before" });
      expect((await moveWallets(clientId)).status).toBe(500);
    },
    act: confirmOnce,
    after: confirmRetried,
    settled: moved,
    total: lessCharge(),
  },
  {
    // Charged before the move, a line fails after it: the old wallet takes the refund and passes it on.
    name: "refunding a failed line after the wallet moved",
    seams: [ORDER_SEAMS.walletRefund, ORDER_SEAMS.walletMoveIn],
    order: () => [line("DEMO-US-FAILING", 7, 1), SANDBOX_LINE()],
    before: async (run) => {
      // Processing waits for its timer: its first supplier call fails.
      armFault(ORDER_SEAMS.supplierSandbox, { when: "before" });
      await confirmed(run);
      await waitForTimerRun(run.orderId);
      // Its retry waits for the drain below, not for the platform's alarm, which may fire during the move.
      await rewriteStoredOrder(run.orderId, () => {}, { process: Date.now() + 60_000 });
      await moved(run);
    },
    act: ({ orderId }) => drain(orderId),
    expect: "partial",
    total: lessCharge(7),
  },
  {
    // A confirm cut off after its charge landed in the old wallet; the wallet moves; the order expires:
    // the void credits the charge back in the old wallet, which passes it on, and voids it in the new.
    name: "expiry after the wallet moved, its charge in the old wallet",
    seams: [ORDER_SEAMS.walletVoid, ORDER_SEAMS.walletMoveIn],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    before: async (run) => {
      armFault(ORDER_SEAMS.walletCharge, { when: "after" });
      expect((await confirmOnce(run)).status).toBe(500);
      // Past expiresAt at once, so that settling (its alarm 5 s ahead) confirms nothing; the void waits
      // for the drain, after the move.
      await backdateExpiry(run.orderId);
      await moved(run);
    },
    act: ({ orderId }) => drain(orderId),
    settled: lateConfirmRefused,
    expect: "rejected",
    total: () => "1000",
  },
  {
    name: "a sandbox top-up",
    seams: ALL_SANDBOX_SEAMS,
    act: (run) => sandboxTopUp(run),
    orderless: true,
    after: toppedUpOnce(sandboxTopUp, sandboxTopUpKey),
    outcome: noOrder,
  },
  {
    name: "an operator top-up",
    seams: OPERATOR_POSTING_SEAMS,
    act: (run) => operatorTopUp(run),
    orderless: true,
    after: toppedUpOnce(operatorTopUp, topUpKey),
    outcome: noOrder,
  },
];

/**
 * A top-up retried as a client would after the fault: taken, to 1012.34, and written once, under the
 * ledger key its idempotency key (the run's reference) gives.
 */
function toppedUpOnce(
  topUp: (run: Run) => Promise<{ status: number; body: any }>,
  ledgerKey: (idempotencyKey: string) => string,
) {
  return async (run: Run): Promise<void> => {
    const retried = await asClient(() => topUp(run));
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.balance).toBe(1012.34);
    const entries = await wallet(run.clientId, "USD").entries(0, 1000);
    expect(entries.filter((entry) => entry.key === ledgerKey(run.reference))).toHaveLength(1);
  };
}

/** POST /sandbox/orders/:orderId/expire, as the order's client. */
function expireNow({ orderId, key }: Run) {
  return call("POST", `/sandbox/orders/${orderId}/expire`, {
    key,
    headers: { "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

/** A sandbox top-up of 12.34 by the client itself, its idempotency key the run's reference. */
function sandboxTopUp({ key, reference }: Run) {
  return call("POST", "/sandbox/wallets/USD/top-ups", {
    key,
    body: { amount: "12.34" },
    headers: { "idempotency-key": reference, "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

/** An operator's top-up of 12.34, its idempotency key the run's reference. */
function operatorTopUp({ clientId, reference }: Run) {
  return admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
    amount: "12.34",
    idempotencyKey: reference,
    reason: "fault matrix",
  });
}

const CASES = SCENARIOS.flatMap((scenario) =>
  scenario.seams.flatMap((seam) => VARIANTS.map((variant) => ({ scenario, seam, variant }))),
);
const report = {
  cases: 0,
  runs: 0,
  faultsFired: 0,
  deliveries: 0,
  violations: [] as string[],
  callsFailed: {} as Record<string, number>,
  capped: [] as string[],
};

beforeAll(setUpOutsideParties);
afterEach(() => clearFaults());

afterAll(() => {
  vi.restoreAllMocks();
  console.log(
    JSON.stringify({
      faultMatrix: {
        operations: SCENARIOS.length,
        seamCases: CASES.length,
        runs: report.runs,
        faultsFired: report.faultsFired,
        webhookDeliveries: report.deliveries,
        casesByCallsFailed: report.callsFailed,
        casesStoppedAtTheBound: report.capped,
        violations: report.violations.length,
      },
    }),
  );
});

describe("fault matrix: every operation × every seam × each of its calls × before/after × with and without reset", () => {
  it("has a case for every seam the service lists", () => {
    const covered = new Set(CASES.map((c) => c.seam));
    const listed = [...Object.values(ORDER_SEAMS), ...ALL_INVENTORY_SEAMS, ...ALL_WALLET_SEAMS, ...ALL_SANDBOX_SEAMS];
    expect(listed.filter((seam) => !covered.has(seam))).toEqual([]);
  });

  it.each(
    CASES.map((c) => [c.scenario.name, c.seam, `${c.variant.when}${c.variant.reset ? " + reset" : ""}`, c] as const),
  )(
    "%s, %s fails %s at each of its calls in turn: every invariant holds once retries and timers have run",
    async (_name, seam, variantName, { scenario, variant }) => {
      const found: string[] = [];
      for (let skip = 0; skip <= MAX_SKIP; skip += 1) {
        clearFaults();
        const outcome = await runScenario(scenario, seam, { ...variant, skip });
        const fired = firedFaults().some((entry) => entry.startsWith(`${seam}:`));
        report.runs += 1;
        report.faultsFired += firedFaults().length;
        // The first call must fail, or the case proves nothing; a later one ends the case once the
        // operation no longer passes the seam that many times (that run is still checked, fault-free).
        if (skip === 0) expect(fired, `fired: ${firedFaults()}`).toBe(true);
        found.push(
          ...(await violations(outcome)).map(
            (v) => `${scenario.name} / ${seam} / ${variantName} / call ${skip + 1}: ${v}`,
          ),
        );
        if (!fired) {
          report.callsFailed[skip] = (report.callsFailed[skip] ?? 0) + 1;
          break;
        }
        if (skip === MAX_SKIP) report.capped.push(`${scenario.name} / ${seam} / ${variantName}`);
      }
      report.cases += 1;
      report.violations.push(...found);
      expect(found).toEqual([]);
    },
  );

  it("every event handed to the queue is delivered, each delivery signed with its client's secret", async () => {
    // The queue hands out a batch within 1 s (max_batch_timeout); deliveries run in the background.
    const deadline = Date.now() + 20_000;
    const missing = () => [...handedToQueue].filter((id) => !hooks.delivered.has(id));
    while (missing().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    report.deliveries = hooks.deliveries;
    expect(handedToQueue.size).toBeGreaterThan(0);
    expect(missing()).toEqual([]);
    expect(hooks.bad).toEqual([]);
  });
});
