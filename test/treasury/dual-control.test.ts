/**
 * Dual control of operator postings (docs/operator-api.md, Dual control), in the sandbox: each credential
 * moves alone at most its currency's approval limit in any 24 hours, counted in one D1 statement as it is
 * recorded; beyond it a posting waits as a request until another person approves or rejects it; the
 * approval posts once however often it is retried or cut off; a posting the wallet refuses leaves its
 * request `failed`; raising a limit waits for a second admin. Requesters are made ten days back, deciders
 * five: colleagues of long standing, made days apart (test/admin-helpers.ts).
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults, type FaultWhen } from "../../src/kernel/faults";
import { effectiveLimit, limitChange, minorOf, requestStatus } from "../../src/treasury/approval-rules";
import { setApprovalLimit } from "../../src/treasury/approval-actions";
import { claimWindow } from "../../src/treasury/approval-store";
import { DUAL_CONTROL_SEAMS } from "../../src/treasury/seams";
import { WALLET_SEAMS } from "../../src/wallets/seams";
import { adjustmentKey, topUpKey } from "../../src/wallets/ledger-keys";
import { ADMIN_TOKEN, admin, madeOperator } from "../admin-helpers";
import { addClient, topUp } from "../helpers";
import { uid } from "../order-helpers";
import { expectConforms } from "../openapi/conformance";

const CLIENT = "dual";
const tokens: Record<string, string> = {};
const names: Record<string, string> = {};

async function operator(name: string, role: "viewer" | "operator" | "admin" = "operator", daysAgo = 10) {
  const made = await madeOperator(name, role, daysAgo);
  names[name] = made.actor;
  return made.token;
}

beforeAll(async () => {
  await addClient(CLIENT, { USD: "100" });
  tokens.rita = await operator("Rita Requester");
  tokens.sam = await operator("Sam Second", "operator", 5);
  tokens.vic = await operator("Vic Viewer", "viewer");
  tokens.ada = await operator("Ada Admin", "admin", 3);
  // The sandbox's first limit of a currency lowers it (from none): at once, by one admin.
  expect((await admin("PUT", "/admin/approval-limits/USD", { limit: "1000.00" })).body.message).toBe(
    "Approval limit set",
  );
});

afterEach(() => clearFaults());

const balance = async (clientId = CLIENT) =>
  (await admin("GET", `/admin/wallets/${clientId}/USD`)).body.data.balance as number;
const ledgerKeys = async () =>
  ((await admin("GET", `/admin/wallets/${CLIENT}/USD/ledger`)).body.data.entries as { key: string }[]).map(
    (entry) => entry.key,
  );

async function ask(
  kind: "top-ups" | "adjustments",
  amount: string,
  by = tokens.rita!,
  key = uid("dual"),
  clientId = CLIENT,
) {
  const answer = await admin(
    "POST",
    `/admin/wallets/${clientId}/USD/${kind}`,
    { amount, idempotencyKey: key, reason: `asked ${amount}` },
    { token: by },
  );
  return { answer, key };
}

const approve = (id: number, token = tokens.sam!) =>
  admin("POST", `/admin/posting-requests/${id}/approve`, undefined, { token });

async function auditOf(action: string, target: string) {
  const { results } = await env.DB.prepare(
    `SELECT actor, actor_name, details FROM audit_log WHERE action = ?1 AND target = ?2 ORDER BY id`,
  )
    .bind(action, target)
    .all<{ actor: string; actor_name: string | null; details: string }>();
  return results.map((row) => ({ ...row, details: JSON.parse(row.details) }));
}

describe("the rules", () => {
  it("fail closed in live, compare limits in exact decimals, and count windows in minor units", () => {
    expect(effectiveLimit(null, true)).toBe("0");
    expect(effectiveLimit(null, false)).toBeNull();
    expect(effectiveLimit("10", true)).toBe("10");
    expect(limitChange(null, "10")).toBe("lower");
    expect(limitChange("10", null)).toBe("raise");
    expect(limitChange("0", "10")).toBe("raise");
    expect(limitChange("10.00", "10")).toBe("same");
    expect(limitChange("0.3", "0.30")).toBe("same");
    expect(limitChange("10", "9.99")).toBe("lower");
    expect(limitChange("99999999999999.98", "99999999999999.99")).toBe("raise");
    expect(minorOf("-1000.01", "USD")).toBe("100001");
    expect(minorOf("1000", "JPY")).toBe("1000");
    expect(minorOf("1.234", "KWD")).toBe("1234");
    expect(minorOf("999999999999999.99", "USD")).toBe("99999999999999999");
    expect(requestStatus("pending", 1000, 999)).toBe("pending");
    expect(requestStatus("pending", 1000, 1000)).toBe("expired");
    expect(requestStatus("approved", 1000, 5000)).toBe("approved");
    expect(requestStatus("failed", 1000, 5000)).toBe("failed");
  });
});

describe("a posting beyond the window", () => {
  it("waits as a request, is approved by another person, posts once, and names both in the audit log", async () => {
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
      failure: null,
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
    const own = await approve(request.id, tokens.rita);
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ code: "decider_not_allowed", details: { id: request.id } });
    await expectConforms("POST", "/admin/posting-requests/{id}/approve", own);
    expect((await approve(request.id, ADMIN_TOKEN)).body.code).toBe("decider_not_allowed");
    expect((await approve(request.id, tokens.vic)).body.code).toBe("forbidden");
    expect(
      (await admin("POST", `/admin/posting-requests/${request.id}/reject`, undefined, { token: tokens.rita })).body
        .code,
    ).toBe("decider_not_allowed");
    expect(await balance()).toBe(before);

    const approved = await approve(request.id);
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
    const twice = await approve(request.id);
    expect(twice.body.message).toBe("Posting already approved");
    expect(twice.body.data).toMatchObject({ replayed: true, entry: { seq: approved.body.data.entry.seq } });
    expect(await balance()).toBe(before + 1500.5);
    expect((await ledgerKeys()).filter((k) => k === topUpKey(key))).toHaveLength(1);
    // The requester's retry of the top-up posts nothing either.
    expect((await ask("top-ups", "1500.50", tokens.rita, key)).answer.body.data.request.status).toBe("approved");
    expect(await balance()).toBe(before + 1500.5);
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

  it("posts alone up to the window, counts debits by their absolute amount, and holds the rest", async () => {
    const olga = await operator("Olga Window");
    const first = await ask("adjustments", "-60", olga);
    expect(first.answer.body.message).toBe("Wallet adjusted");
    const second = await ask("top-ups", "940", olga);
    expect(second.answer.body.message).toBe("Wallet topped up");
    // 1000 moved alone: the next cent waits, whatever its sign.
    const third = await ask("adjustments", "-0.01", olga);
    expect(third.answer.body.message).toBe("Posting awaits approval");
    expect(third.answer.body.data.request).toMatchObject({ kind: "adjustment", amount: -0.01 });
    // Retried under its key, a posting made alone is posted once, as it was.
    const retried = await ask("top-ups", "940", olga, second.key);
    expect(retried.answer.body).toMatchObject({ message: "Top-up already applied", data: { replayed: true } });
    const limits = await admin("GET", "/admin/approval-limits", undefined, { token: olga });
    await expectConforms("GET", "/admin/approval-limits", limits);
    expect(limits.body.data).toEqual({
      limits: [{ currency: "USD", limit: 1000, left: 0, updatedAt: expect.any(Number) }],
      withoutLimit: "alone",
    });
    // Approved postings are two people's: they count in no one's window.
    expect((await approve(third.answer.body.data.request.id)).status).toBe(200);
    expect(
      (await admin("GET", "/admin/approval-limits", undefined, { token: tokens.sam })).body.data.limits[0].left,
    ).toBe(1000);
  });

  it("lets two postings at once take the last of a window only once", async () => {
    const pat = await operator("Pat Parallel");
    const answers = await Promise.all(["600", "600", "600"].map((amount) => ask("top-ups", amount, pat)));
    const messages = answers.map(({ answer }) => answer.body.message).sort();
    expect(messages).toEqual(["Posting awaits approval", "Posting awaits approval", "Wallet topped up"]);
  });

  it("counts what an operator made today moves against the credential that made it", async () => {
    await addClient("dual-minted", {});
    const made = await madeOperator("Made Today", "operator", 0, tokens.ada);
    const byMade = await ask("top-ups", "700", made.token, uid("m"), "dual-minted");
    expect(byMade.answer.body.message).toBe("Wallet topped up");
    // Ada's own window holds what her operator moved in its first day.
    const byAda = await ask("top-ups", "400", tokens.ada, uid("a"), "dual-minted");
    expect(byAda.answer.body.message).toBe("Posting awaits approval");
    const row = await env.DB.prepare(`SELECT answerable FROM posting_requests WHERE idempotency_key = ?1`)
      .bind(byMade.key)
      .first<{ answerable: string }>();
    expect(row!.answerable).toBe(` ${made.actor} ${names["Ada Admin"]} `);
  });

  it("refuses a request under a key the wallet already holds, and fails a request whose posting the wallet refuses", async () => {
    await addClient("dual-keys", { USD: "0" });
    // Posted before postings made alone were recorded: the wallet holds the key, no row names it.
    await topUp("dual-keys", "USD", "50", topUpKey("held-before"));
    const reused = await ask("top-ups", "5000", tokens.rita, "held-before", "dual-keys");
    expect(reused.answer.status).toBe(409);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", reused.answer);
    expect(reused.answer.body).toMatchObject({
      code: "idempotency_key_posted",
      message: "Idempotency key already names a posting in this wallet",
      details: { idempotencyKey: "held-before", entry: { kind: "top_up", amount: 50 } },
    });

    const debit = await ask("adjustments", "-3000", tokens.rita, uid("debit"), "dual-keys");
    const id = debit.answer.body.data.request.id as number;
    const refused = await approve(id);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("adjustment_below_zero");
    const failed = await admin("GET", `/admin/posting-requests?status=failed&clientId=dual-keys`);
    expect(failed.body.data.requests).toMatchObject([
      { id, status: "failed", failure: "Adjustment would take the balance below zero" },
    ]);
    expect((await auditOf("wallet.posting_failed", `posting_request:${id}`)).length).toBe(1);
    const again = await approve(id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "posting_request_closed", details: { status: "failed" } });
    expect(await balance("dual-keys")).toBe(50);
  });

  it("cannot be approved once expired, and a rejected one never posts", async () => {
    const expiring = await ask("top-ups", "3000");
    const expiringId = expiring.answer.body.data.request.id as number;
    await env.DB.prepare(`UPDATE posting_requests SET expires_at = ?2 WHERE id = ?1`)
      .bind(expiringId, Date.now() - 1)
      .run();
    const before = await balance();
    const expired = await approve(expiringId);
    expect(expired.status).toBe(409);
    expect(expired.body).toMatchObject({
      code: "posting_request_closed",
      details: { id: expiringId, status: "expired" },
    });
    await expectConforms("POST", "/admin/posting-requests/{id}/approve", expired);
    const listed = await admin("GET", `/admin/posting-requests?status=expired&clientId=${CLIENT}`);
    expect(listed.body.data.requests.map((r: { id: number }) => r.id)).toEqual([expiringId]);

    const rejecting = await ask("top-ups", "4000");
    const id = rejecting.answer.body.data.request.id as number;
    const rejected = await admin("POST", `/admin/posting-requests/${id}/reject`, undefined, { token: tokens.sam });
    expect(rejected.status).toBe(200);
    await expectConforms("POST", "/admin/posting-requests/{id}/reject", rejected);
    expect(rejected.body.data.request).toMatchObject({ status: "rejected", decidedBy: { name: "Sam Second" } });
    const again = await admin("POST", `/admin/posting-requests/${id}/reject`, undefined, { token: tokens.sam });
    expect(again.body).toMatchObject({ message: "Posting already rejected", data: { replayed: true } });
    expect((await approve(id)).body).toMatchObject({ code: "posting_request_closed", details: { status: "rejected" } });
    expect(await balance()).toBe(before);
  });

  it("404 for a request that does not exist, and for a posting made alone", async () => {
    const missing = await approve(999999);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "posting_request_not_found", details: { id: 999999 } });
    const alone = await env.DB.prepare(`SELECT id FROM posting_requests WHERE status = 'posted' LIMIT 1`).first<{
      id: number;
    }>();
    expect((await approve(alone!.id)).body.code).toBe("posting_request_not_found");
  });
});

describe("an approval cut off anywhere posts exactly once", () => {
  const cases: [string, FaultWhen][] = [
    [DUAL_CONTROL_SEAMS.decide, "before"],
    [DUAL_CONTROL_SEAMS.decide, "after"],
    [WALLET_SEAMS.operatorPost, "before"],
    [WALLET_SEAMS.operatorPost, "after"],
    [WALLET_SEAMS.operatorAudit, "after"],
    [DUAL_CONTROL_SEAMS.record, "before"],
    [DUAL_CONTROL_SEAMS.record, "after"],
  ];
  for (const [seam, when] of cases)
    it(`cut off at ${seam} (${when}), approved again: one entry, one decision`, async () => {
      const { answer, key } = await ask("top-ups", "2000");
      const id = answer.body.data.request.id as number;
      const before = await balance();
      armFault(seam, { when });
      expect((await approve(id)).status).toBe(500);
      clearFaults();
      const retried = await approve(id);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.data.entry.key).toBe(topUpKey(key));
      expect(retried.body.data.request).toMatchObject({ status: "approved", entrySeq: retried.body.data.entry.seq });
      expect(await balance()).toBeCloseTo(before + 2000, 2);
      expect((await ledgerKeys()).filter((k) => k === topUpKey(key))).toHaveLength(1);
      expect((await auditOf("wallet.posting_approved", `posting_request:${id}`)).length).toBe(1);
    });

  for (const when of ["before", "after"] as const)
    it(`a posting made alone cut off at its window's record (${when}) is posted once when sent again`, async () => {
      const cleo = await operator(`Cleo ${when}`);
      const key = uid("claim");
      armFault(DUAL_CONTROL_SEAMS.claim, { when });
      expect((await ask("top-ups", "300", cleo, key)).answer.status).toBe(500);
      clearFaults();
      const before = await balance();
      const again = await ask("top-ups", "300", cleo, key);
      expect(again.answer.body.message).toBe("Wallet topped up");
      expect(await balance()).toBeCloseTo(before + 300, 2);
      expect((await ledgerKeys()).filter((k) => k === topUpKey(key))).toHaveLength(1);
    });

  it("a refusal cut off before it is recorded as failed is recorded when approved again", async () => {
    const { answer } = await ask("adjustments", "-99999");
    const id = answer.body.data.request.id as number;
    armFault(DUAL_CONTROL_SEAMS.failed, { when: "before" });
    expect((await approve(id)).status).toBe(500);
    clearFaults();
    expect((await approve(id)).body.code).toBe("adjustment_below_zero");
    expect((await admin("GET", `/admin/posting-requests?status=failed&clientId=${CLIENT}`)).body.data.requests).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, status: "failed" })]),
    );
    expect(await ledgerKeys()).not.toContain(adjustmentKey(answer.body.data.request.idempotencyKey));
  });
});

describe("the approval limits", () => {
  it("lower at once; raising or removing waits for a second admin, who may not be the one who asked", async () => {
    expect((await admin("PUT", "/admin/approval-limits/EUR", { limit: "10.001" })).status).toBe(400);
    expect((await admin("PUT", "/admin/approval-limits/JPY", { limit: "0" })).status).toBe(400);
    const first = await admin("PUT", "/admin/approval-limits/EUR", { limit: 2500 });
    expect(first.body).toMatchObject({ message: "Approval limit set", data: { currency: "EUR", limit: 2500 } });
    await expectConforms("PUT", "/admin/approval-limits/{currency}", first);
    const lower = await admin("PUT", "/admin/approval-limits/EUR", { limit: 2000 }, { token: tokens.ada });
    expect(lower.body).toMatchObject({ message: "Approval limit set", data: { limit: 2000, request: null } });

    const raise = await admin("PUT", "/admin/approval-limits/EUR", { limit: 900000 }, { token: tokens.ada });
    expect(raise.body.message).toBe("Limit change awaits approval");
    await expectConforms("PUT", "/admin/approval-limits/{currency}", raise);
    expect(raise.body.data).toMatchObject({
      limit: 2000,
      request: { currency: "EUR", limit: 900000, previous: 2000, status: "pending" },
    });
    const id = raise.body.data.request.id as number;
    const asked = await admin("PUT", "/admin/approval-limits/EUR", { limit: 900000 }, { token: tokens.ada });
    expect(asked.body).toMatchObject({
      message: "Limit request already made",
      data: { replayed: true, request: { id } },
    });
    const listed = await admin("GET", "/admin/approval-limit-requests", undefined, { token: tokens.vic });
    await expectConforms("GET", "/admin/approval-limit-requests", listed);
    expect(listed.body.data.requests.map((r: { id: number }) => r.id)).toEqual([id]);

    const decide = (token: string, action = "approve") =>
      admin("POST", `/admin/approval-limit-requests/${id}/${action}`, undefined, { token });
    for (const token of [tokens.ada!, ADMIN_TOKEN]) {
      const refused = await decide(token);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("decider_not_allowed");
      await expectConforms("POST", "/admin/approval-limit-requests/{id}/approve", refused);
    }
    expect((await decide(tokens.sam!)).body.code).toBe("forbidden");
    const boss = await operator("Bo Second Admin", "admin", 6);
    const approved = await decide(boss);
    expect(approved.status).toBe(200);
    await expectConforms("POST", "/admin/approval-limit-requests/{id}/approve", approved);
    expect(approved.body).toMatchObject({
      message: "Limit change approved",
      data: { limit: 900000, request: { status: "approved", decidedBy: { name: "Bo Second Admin" } } },
    });
    expect((await decide(boss)).body).toMatchObject({
      message: "Limit change already approved",
      data: { replayed: true },
    });
    expect((await decide(boss, "reject")).body).toMatchObject({
      code: "limit_request_closed",
      details: { status: "approved" },
    });
    const set = await auditOf("approval_limit.set", "currency:EUR");
    expect(set.at(-1)).toMatchObject({
      actor_name: "Bo Second Admin",
      details: { amount: "900000", limitRequest: id },
    });

    // Removing a sandbox limit is raising it to none: it waits too, and a rejection leaves it.
    const remove = await admin("PUT", "/admin/approval-limits/EUR", { limit: null }, { token: tokens.ada });
    expect(remove.body.message).toBe("Limit change awaits approval");
    const rejected = await admin(
      "POST",
      `/admin/approval-limit-requests/${remove.body.data.request.id}/reject`,
      undefined,
      { token: boss },
    );
    await expectConforms("POST", "/admin/approval-limit-requests/{id}/reject", rejected);
    expect(rejected.body).toMatchObject({ message: "Limit change rejected", data: { limit: 900000 } });
    expect(
      (await admin("GET", "/admin/approval-limits")).body.data.limits.map((l: { currency: string; limit: number }) => [
        l.currency,
        l.limit,
      ]),
    ).toEqual([
      ["EUR", 900000],
      ["USD", 1000],
    ]);
    expect(
      (await admin("POST", "/admin/approval-limit-requests/999999/approve", undefined, { token: boss })).body.code,
    ).toBe("limit_request_not_found");
  });

  it("in live, a currency without a limit is the strictest: setting its first waits, removing one is at once", async () => {
    const by = { actor: { kind: "break-glass" as const }, requestId: "req_test" };
    const first = await setApprovalLimit(env, by, "CHF", "500", true);
    expect(first).toMatchObject({ limit: null, request: { currency: "CHF", amount: "500", previous: null } });
    await env.DB.prepare(`INSERT INTO approval_limits (currency, amount, updated_at) VALUES ('CHF', '500', 0)`).run();
    const removed = await setApprovalLimit(env, by, "CHF", null, true);
    expect(removed).toEqual({ limit: null, request: null, replayed: false });
    expect(await env.DB.prepare(`SELECT 1 FROM approval_limits WHERE currency = 'CHF'`).first()).toBeNull();
  });

  it("a limit decision cut off before its write is decided again; after, it answers as decided", async () => {
    const boss = await operator("Cut Admin", "admin", 6);
    await admin("PUT", "/admin/approval-limits/GBP", { limit: 100 });
    for (const when of ["before", "after"] as const) {
      const raise = await admin(
        "PUT",
        "/admin/approval-limits/GBP",
        { limit: when === "before" ? 7000 : 8000 },
        { token: tokens.ada },
      );
      const id = (raise.body.data.request?.id ?? 0) as number;
      expect(id).toBeGreaterThan(0);
      armFault(DUAL_CONTROL_SEAMS.limit, { when });
      expect(
        (await admin("POST", `/admin/approval-limit-requests/${id}/approve`, undefined, { token: boss })).status,
      ).toBe(500);
      clearFaults();
      const again = await admin("POST", `/admin/approval-limit-requests/${id}/approve`, undefined, { token: boss });
      expect(again.body.data).toMatchObject({ request: { status: "approved" }, replayed: when === "after" });
      expect((await auditOf("approval_limit.approved", `limit_request:${id}`)).length).toBe(1);
    }
  });
});

describe("what the window costs", () => {
  it("a posting made alone writes 5 D1 rows: its row, its three index entries and the AUTOINCREMENT counter", async () => {
    const written: number[] = [];
    // D1 that keeps the rows_written of each statement run (claimWindow runs one).
    const counting = new Proxy(env.DB, {
      get(target, name) {
        if (name !== "prepare") return Reflect.get(target, name);
        return (query: string) => {
          const bound = (...values: unknown[]) => {
            const statement = target.prepare(query).bind(...values);
            return Object.assign(Object.create(statement), {
              run: async () => {
                const result = await statement.run();
                written.push(result.meta.rows_written);
                return result;
              },
            });
          };
          return { bind: bound };
        };
      },
    }) as D1Database;
    const now = Date.now();
    const asked = {
      clientId: "dual-cost",
      currency: "USD",
      kind: "top_up" as const,
      amount: "10",
      reason: "cost",
      note: null,
      requestedBy: "operator:opr_cost",
      requestedByName: "Cost",
      requestedAt: now,
      expiresAt: now,
    };
    const claim = {
      answerable: ["operator:opr_cost", "break-glass"],
      minor: "1000",
      limitMinor: "100000",
      since: now - 1,
    };
    expect(await claimWindow(counting, { ...asked, idempotencyKey: uid("cost") }, claim)).toBe("claimed");
    expect(await claimWindow(counting, { ...asked, idempotencyKey: uid("cost") }, { ...claim, minor: "100001" })).toBe(
      "full",
    );
    expect(written).toEqual([5, 0]);
  });
});
