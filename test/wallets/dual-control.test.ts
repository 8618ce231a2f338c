/**
 * Dual control of operator postings (docs/operator-api.md, Dual control): a top-up or adjustment above
 * its currency's approval limit waits as a posting request until a different named operator approves or
 * rejects it; the approval posts once however often it is retried; an expired request cannot be approved;
 * the audit log names both operators.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { needsApproval, deciderProblem, requestStatus } from "../../src/wallets/approval-rules";
import { setApprovalLimit } from "../../src/wallets/approval-actions";
import { WALLET_SEAMS } from "../../src/wallets/seams";
import { topUpKey } from "../../src/wallets/ledger-keys";
import { Refusal } from "../../src/kernel/failures";
import { ADMIN_TOKEN, admin } from "../admin-helpers";
import { addClient } from "../helpers";
import { uid } from "../order-helpers";
import { expectConforms } from "../openapi/conformance";

const CLIENT = "dual";
const tokens: Record<string, string> = {};
const names: Record<string, string> = {};

async function operator(name: string, role: "viewer" | "operator" | "admin" = "operator"): Promise<string> {
  const made = await admin("POST", "/admin/operators", { name, role });
  expect(made.status).toBe(201);
  names[name] = `operator:${made.body.data.operator.id}`;
  return made.body.data.token as string;
}

beforeAll(async () => {
  await addClient(CLIENT);
  tokens.rita = await operator("Rita Requester");
  tokens.sam = await operator("Sam Second");
  tokens.vic = await operator("Vic Viewer", "viewer");
  expect((await admin("PUT", "/admin/approval-limits/USD", { limit: "1000.00" })).status).toBe(200);
  const opened = await admin("POST", `/admin/wallets/${CLIENT}/USD/top-ups`, {
    amount: "100",
    idempotencyKey: "opening",
    reason: "open",
  });
  expect(opened.body.data.entry.seq).toBe(1);
});

afterEach(() => clearFaults());

const balance = async () => (await admin("GET", `/admin/wallets/${CLIENT}/USD`)).body.data.balance as number;
const ledgerKeys = async () =>
  ((await admin("GET", `/admin/wallets/${CLIENT}/USD/ledger`)).body.data.entries as { key: string }[]).map(
    (entry) => entry.key,
  );

async function ask(kind: "top-ups" | "adjustments", amount: string, by = tokens.rita!, key = uid("dual")) {
  const answer = await admin(
    "POST",
    `/admin/wallets/${CLIENT}/USD/${kind}`,
    { amount, idempotencyKey: key, reason: `asked ${amount}` },
    { token: by },
  );
  return { answer, key };
}

async function auditOf(action: string, target: string) {
  const { results } = await env.DB.prepare(
    `SELECT actor, actor_name, details FROM audit_log WHERE action = ?1 AND target = ?2 ORDER BY id`,
  )
    .bind(action, target)
    .all<{ actor: string; actor_name: string | null; details: string }>();
  return results.map((row) => ({ ...row, details: JSON.parse(row.details) }));
}

describe("the rules", () => {
  it("holds a posting whose absolute amount is above the limit, in exact decimals", () => {
    expect(needsApproval("1000.00", "1000")).toBe(false);
    expect(needsApproval("1000.01", "1000")).toBe(true);
    expect(needsApproval("-1000.01", "1000")).toBe(true);
    // 0.1 + 0.2 in floating point is above 0.3; in decimals it is not.
    expect(needsApproval("0.3", "0.30")).toBe(false);
    expect(needsApproval("99999999999999.99", "99999999999999.98")).toBe(true);
    expect(needsApproval("5000", null)).toBe(false);
  });

  it("lets only a named operator other than the requester decide, and expires a pending request", () => {
    expect(deciderProblem({ kind: "operator", id: "opr_1", name: "A" }, "operator:opr_1")).toMatch(/cannot decide/);
    expect(deciderProblem({ kind: "break-glass", label: "admin:12345678" }, "operator:opr_1")).toMatch(/break-glass/);
    expect(deciderProblem({ kind: "operator", id: "opr_2", name: "B" }, "operator:opr_1")).toBeNull();
    expect(requestStatus("pending", 1000, 999)).toBe("pending");
    expect(requestStatus("pending", 1000, 1000)).toBe("expired");
    expect(requestStatus("approved", 1000, 5000)).toBe("approved");
  });
});

describe("a posting above the limit", () => {
  it("waits as a request, is approved by a different operator, posts once, and names both in the audit log", async () => {
    const before = await balance();
    const { answer, key } = await ask("top-ups", "1500.50");
    expect(answer.status).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", answer);
    expect(answer.body.message).toBe("Posting awaits approval");
    expect(answer.body.data).toMatchObject({ entry: null, replayed: false, balance: before });
    const request = answer.body.data.request;
    expect(request).toMatchObject({
      kind: "top_up",
      amount: 1500.5,
      status: "pending",
      idempotencyKey: key,
      requestedBy: { actor: names["Rita Requester"], name: "Rita Requester" },
      decidedBy: null,
      entrySeq: null,
    });
    expect(request.expiresAt - request.requestedAt).toBe(24 * 60 * 60 * 1000);
    expect(await balance()).toBe(before);
    expect(await ledgerKeys()).not.toContain(topUpKey(key));

    // Asked again with its key: the same request; with another amount: 409.
    const again = await ask("top-ups", "1500.50", tokens.rita, key);
    expect(again.answer.body.message).toBe("Posting request already made");
    expect(again.answer.body.data.request.id).toBe(request.id);
    expect((await ask("top-ups", "1600", tokens.rita, key)).answer.body.code).toBe("idempotency_conflict");
    expect((await ask("adjustments", "1500.50", tokens.rita, key)).answer.body.code).toBe("idempotency_conflict");

    const pending = await admin("GET", `/admin/posting-requests?clientId=${CLIENT}`, undefined, { token: tokens.vic });
    expect(pending.status).toBe(200);
    await expectConforms("GET", "/admin/posting-requests", pending);
    expect(pending.body.data.requests.map((r: { id: number }) => r.id)).toContain(request.id);

    // Neither the requester nor the break-glass token, nor a viewer, may approve it.
    const own = await admin("POST", `/admin/posting-requests/${request.id}/approve`, undefined, { token: tokens.rita });
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ code: "decider_not_allowed", details: { id: request.id } });
    await expectConforms("POST", "/admin/posting-requests/{id}/approve", own);
    const glass = await admin("POST", `/admin/posting-requests/${request.id}/approve`, undefined, {
      token: ADMIN_TOKEN,
    });
    expect(glass.body.code).toBe("decider_not_allowed");
    const viewer = await admin("POST", `/admin/posting-requests/${request.id}/approve`, undefined, {
      token: tokens.vic,
    });
    expect(viewer.body.code).toBe("forbidden");
    expect(
      (await admin("POST", `/admin/posting-requests/${request.id}/reject`, undefined, { token: tokens.rita })).body
        .code,
    ).toBe("decider_not_allowed");
    expect(await balance()).toBe(before);

    const approved = await admin("POST", `/admin/posting-requests/${request.id}/approve`, undefined, {
      token: tokens.sam,
    });
    expect(approved.status).toBe(200);
    await expectConforms("POST", "/admin/posting-requests/{id}/approve", approved);
    expect(approved.body.message).toBe("Posting approved");
    expect(approved.body.data.request).toMatchObject({
      status: "approved",
      decidedBy: { actor: names["Sam Second"], name: "Sam Second" },
    });
    expect(approved.body.data.entry).toMatchObject({ key: topUpKey(key), amount: 1500.5 });
    expect(approved.body.data.request.entrySeq).toBe(approved.body.data.entry.seq);
    expect(await balance()).toBe(before + 1500.5);

    // Approved again (a lost reply): nothing more is written.
    const twice = await admin("POST", `/admin/posting-requests/${request.id}/approve`, undefined, {
      token: tokens.sam,
    });
    expect(twice.body.message).toBe("Posting already approved");
    expect(twice.body.data).toMatchObject({ replayed: true, entry: { seq: approved.body.data.entry.seq } });
    expect(await balance()).toBe(before + 1500.5);
    expect((await ledgerKeys()).filter((k) => k === topUpKey(key))).toHaveLength(1);
    // The requester's retry of the top-up posts nothing either.
    expect((await ask("top-ups", "1500.50", tokens.rita, key)).answer.body.data.request.status).toBe("approved");
    expect(await balance()).toBe(before + 1500.5);
    // Closed: it cannot be rejected now.
    const late = await admin("POST", `/admin/posting-requests/${request.id}/reject`, undefined, { token: tokens.sam });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: "posting_request_closed", details: { status: "approved" } });

    // The audit log names both: the request by Rita, the decision and the posting by Sam, each with Rita.
    const [asked] = await auditOf("wallet.posting_requested", `wallet:${CLIENT}:USD`).then((rows) =>
      rows.filter((row) => row.details.idempotencyKey === key),
    );
    expect(asked).toMatchObject({ actor: names["Rita Requester"], actor_name: "Rita Requester" });
    const decisions = await auditOf("wallet.posting_approved", `posting_request:${request.id}`);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      actor: names["Sam Second"],
      actor_name: "Sam Second",
      details: { requestedBy: names["Rita Requester"], requestedByName: "Rita Requester" },
    });
    const postings = (await auditOf("wallet.top_up", `wallet:${CLIENT}:USD`)).filter(
      (row) => row.details.idempotencyKey === key,
    );
    expect(postings).toHaveLength(1);
    expect(postings[0]).toMatchObject({
      actor_name: "Sam Second",
      details: { postingRequest: request.id, requestedBy: names["Rita Requester"] },
    });
  });

  it("posts at or under the limit at once, and holds an adjustment by its absolute amount", async () => {
    const at = await ask("top-ups", "1000");
    expect(at.answer.body.message).toBe("Wallet topped up");
    expect(at.answer.body.data.request).toBeNull();
    const debit = await ask("adjustments", "-1000.01");
    expect(debit.answer.body.message).toBe("Posting awaits approval");
    expect(debit.answer.body.data.request).toMatchObject({ kind: "adjustment", amount: -1000.01 });
  });

  it("posts exactly once when the approval's reply is lost after the posting, and it is approved again", async () => {
    const { answer, key } = await ask("top-ups", "2000");
    const id = answer.body.data.request.id as number;
    const before = await balance();
    armFault(WALLET_SEAMS.operatorPost, { when: "after" });
    const lost = await admin("POST", `/admin/posting-requests/${id}/approve`, undefined, { token: tokens.sam });
    expect(lost.status).toBe(500);
    // The decision stands, its posting not yet recorded: the list shows it approved, unfinished.
    const listed = await admin("GET", `/admin/posting-requests?status=approved&clientId=${CLIENT}`);
    expect(listed.body.data.requests.find((r: { id: number }) => r.id === id)).toMatchObject({ entrySeq: null });
    const retried = await admin("POST", `/admin/posting-requests/${id}/approve`, undefined, { token: tokens.sam });
    expect(retried.status).toBe(200);
    expect(retried.body.data.entry.key).toBe(topUpKey(key));
    expect(await balance()).toBe(before + 2000);
    expect((await ledgerKeys()).filter((k) => k === topUpKey(key))).toHaveLength(1);
    expect((await auditOf("wallet.posting_approved", `posting_request:${id}`)).length).toBe(1);
  });

  it("cannot be approved once expired, and a rejected one never posts", async () => {
    const expiring = await ask("top-ups", "3000");
    const expiringId = expiring.answer.body.data.request.id as number;
    await env.DB.prepare(`UPDATE posting_requests SET expires_at = ?2 WHERE id = ?1`)
      .bind(expiringId, Date.now() - 1)
      .run();
    const before = await balance();
    const expired = await admin("POST", `/admin/posting-requests/${expiringId}/approve`, undefined, {
      token: tokens.sam,
    });
    expect(expired.status).toBe(409);
    expect(expired.body).toMatchObject({
      code: "posting_request_closed",
      details: { id: expiringId, status: "expired" },
    });
    await expectConforms("POST", "/admin/posting-requests/{id}/approve", expired);
    const listed = await admin("GET", `/admin/posting-requests?status=expired&clientId=${CLIENT}`);
    expect(listed.body.data.requests.map((r: { id: number }) => r.id)).toEqual([expiringId]);
    const pending = await admin("GET", `/admin/posting-requests?clientId=${CLIENT}`);
    expect(pending.body.data.requests.map((r: { id: number }) => r.id)).not.toContain(expiringId);

    const rejecting = await ask("top-ups", "4000");
    const id = rejecting.answer.body.data.request.id as number;
    const rejected = await admin("POST", `/admin/posting-requests/${id}/reject`, undefined, { token: tokens.sam });
    expect(rejected.status).toBe(200);
    await expectConforms("POST", "/admin/posting-requests/{id}/reject", rejected);
    expect(rejected.body.data.request).toMatchObject({ status: "rejected", decidedBy: { name: "Sam Second" } });
    const again = await admin("POST", `/admin/posting-requests/${id}/reject`, undefined, { token: tokens.sam });
    expect(again.body).toMatchObject({ message: "Posting already rejected", data: { replayed: true } });
    const approve = await admin("POST", `/admin/posting-requests/${id}/approve`, undefined, { token: tokens.sam });
    expect(approve.body).toMatchObject({ code: "posting_request_closed", details: { status: "rejected" } });
    expect((await ask("top-ups", "4000", tokens.rita, rejecting.key)).answer.body.data.request.status).toBe("rejected");
    expect(await balance()).toBe(before);
    const rejections = await auditOf("wallet.posting_rejected", `posting_request:${id}`);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]).toMatchObject({ actor_name: "Sam Second", details: { requestedByName: "Rita Requester" } });
  });

  it("404 for a request that does not exist", async () => {
    const missing = await admin("POST", "/admin/posting-requests/999999/approve", undefined, { token: tokens.sam });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "posting_request_not_found", details: { id: 999999 } });
  });
});

describe("the approval limits", () => {
  it("are set by an admin in exact minor units, listed, and removed only in the sandbox", async () => {
    const bad = await admin("PUT", "/admin/approval-limits/USD", { limit: "10.001" });
    expect(bad.status).toBe(400);
    expect((await admin("PUT", "/admin/approval-limits/JPY", { limit: "0" })).status).toBe(400);
    const set = await admin("PUT", "/admin/approval-limits/EUR", { limit: 2500 });
    expect(set.body.data).toEqual({ currency: "EUR", limit: 2500 });
    await expectConforms("PUT", "/admin/approval-limits/{currency}", set);
    const listed = await admin("GET", "/admin/approval-limits", undefined, { token: tokens.vic });
    await expectConforms("GET", "/admin/approval-limits", listed);
    expect(listed.body.data.limits.map((l: { currency: string; limit: number }) => [l.currency, l.limit])).toEqual([
      ["EUR", 2500],
      ["USD", 1000],
    ]);
    const off = await admin("PUT", "/admin/approval-limits/EUR", { limit: null });
    expect(off.body.data).toEqual({ currency: "EUR", limit: null });
    expect((await auditOf("approval_limit.remove", "currency:EUR")).length).toBe(1);
    // Live keeps dual control on: a removal is refused there.
    const by = { actor: { kind: "break-glass" as const }, requestId: "req_test" };
    await expect(setApprovalLimit(env, by, "USD", null, true)).rejects.toSatisfy(
      (error) => error instanceof Refusal && error.failure.code === "invalid_request_body",
    );
    expect(
      (await admin("GET", "/admin/approval-limits")).body.data.limits.map((l: { currency: string }) => l.currency),
    ).toEqual(["USD"]);
  });
});
