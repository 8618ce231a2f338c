/**
 * Dual control on the console's wallet page: a posting beyond what its operator may move alone waits; the
 * page shows the request to every role, escaped, with Approve and Reject only for an operator who did not
 * ask for it; deciding is a POST under the Origin check, and the requester's own approval is refused. The
 * posting form says which text is the internal reason and which the note the client sees. Requesters are
 * made ten days back and approvers five (colleagues of long standing, made days apart).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { WALLET_SEAMS } from "../../src/wallets/seams";
import { admin } from "../admin-helpers";
import { addClient } from "../helpers";
import { fetchConsole, formKeyOf, PROBE, PROBE_ESCAPED, signedIn } from "./console-helpers";

const CLIENT = "console-dual";
const PAGE = `/console/wallets/${CLIENT}/USD`;

beforeAll(async () => {
  await addClient(CLIENT);
  expect((await admin("PUT", "/admin/approval-limits/USD", { limit: "1000" })).status).toBe(200);
});

const balance = async () => (await admin("GET", `/admin/wallets/${CLIENT}/USD`)).body.data?.balance ?? 0;

async function askOnPage(cookie: string, amount: string): Promise<number> {
  const page = await fetchConsole("GET", PAGE, { cookie });
  const posted = await fetchConsole("POST", PAGE, {
    cookie,
    form: { action: "top-up", formKey: formKeyOf(page.text, "top-up"), amount, reason: PROBE, note: "" },
  });
  expect(posted.status).toBe(303);
  expect(posted.headers.get("location")).toBe(`${PAGE}?notice=held`);
  const row = await env.DB.prepare(`SELECT id FROM posting_requests WHERE client_id = ?1 ORDER BY id DESC`)
    .bind(CLIENT)
    .first<{ id: number }>();
  return row!.id;
}

describe("the wallet page's posting requests", () => {
  it("holds a posting above the limit, and lets only another operator approve it", async () => {
    const rita = await signedIn("operator", "Rita Console", 10);
    const id = await askOnPage(rita, "5000");
    expect(await balance()).toBe(0);

    const own = await fetchConsole("GET", PAGE, { cookie: rita });
    expect(own.text).toContain("yours: another operator decides it");
    // The form says which text stays inside and which the client sees.
    expect(own.text).toContain("Internal reason");
    expect(own.text).toContain("the client never sees it");
    expect(own.text).toContain("Note to the client (optional)");
    expect(own.text).toContain(PROBE_ESCAPED);
    expect(own.text).not.toContain(PROBE);
    expect(own.text).not.toContain(`aria-label="Approve request ${id}"`);
    const refused = await fetchConsole("POST", PAGE, {
      cookie: rita,
      form: { action: "approve", request: String(id) },
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("You may not decide this request: the operator who asked cannot decide it.");
    expect(await balance()).toBe(0);

    const viewer = await fetchConsole("GET", PAGE, { cookie: await signedIn("viewer") });
    expect(viewer.text).toContain("needs the operator role");
    expect(viewer.text).not.toContain(`aria-label="Approve request ${id}"`);

    // Made today: it could be Rita's own, so it may not decide what she asked before it existed.
    const fresh = await signedIn("operator", "Fresh Console");
    const tooNew = await fetchConsole("POST", PAGE, {
      cookie: fresh,
      form: { action: "approve", request: String(id) },
    });
    expect(tooNew.status).toBe(403);
    expect(tooNew.text).toContain("made less than a day before the request");
    const sam = await signedIn("operator", "Sam Console", 5);
    const page = await fetchConsole("GET", PAGE, { cookie: sam });
    expect(page.text).toContain(`aria-label="Approve request ${id}"`);
    expect(page.text).toContain(`aria-label="Reject request ${id}"`);
    // From another site: refused by the Origin check before anything is decided.
    const forged = await fetchConsole("POST", PAGE, {
      cookie: sam,
      origin: "https://evil.example",
      form: { action: "approve", request: String(id) },
    });
    expect(forged.status).toBe(403);
    expect(await balance()).toBe(0);

    const approved = await fetchConsole("POST", PAGE, {
      cookie: sam,
      form: { action: "approve", request: String(id) },
    });
    expect(approved.status).toBe(303);
    expect(approved.headers.get("location")).toBe(`${PAGE}?notice=approved`);
    expect(await balance()).toBe(5000);
    // Sent again (a double click): already approved, nothing more posted.
    const again = await fetchConsole("POST", PAGE, { cookie: sam, form: { action: "approve", request: String(id) } });
    expect(again.status).toBe(303);
    expect(await balance()).toBe(5000);
    const decided = await env.DB.prepare(
      `SELECT actor_name FROM audit_log WHERE action = 'wallet.posting_approved' AND target = ?1`,
    )
      .bind(`posting_request:${id}`)
      .all<{ actor_name: string }>();
    expect(decided.results).toEqual([{ actor_name: "Sam Console" }]);
  });

  it("shows an approval cut off before its posting, and Finish posting posts it once", async () => {
    const id = await askOnPage(await signedIn("operator", undefined, 10), "1500");
    const sam = await signedIn("operator", undefined, 5);
    const before = await balance();
    armFault(WALLET_SEAMS.operatorPost, { when: "after" });
    try {
      const cut = await fetchConsole("POST", PAGE, { cookie: sam, form: { action: "approve", request: String(id) } });
      expect(cut.status).toBe(500);
    } finally {
      clearFaults();
    }
    const page = await fetchConsole("GET", PAGE, { cookie: sam });
    expect(page.text).toContain("approved, posting not finished");
    expect(page.text).toContain(`aria-label="Finish posting request ${id}"`);
    const finished = await fetchConsole("POST", PAGE, {
      cookie: sam,
      form: { action: "approve", request: String(id) },
    });
    expect(finished.status).toBe(303);
    expect(await balance()).toBe(before + 1500);
    expect((await fetchConsole("GET", PAGE, { cookie: sam })).text).not.toContain(`request ${id}"`);
  });

  it("rejects one, and refuses to decide a request of another wallet from this page", async () => {
    const rita = await signedIn("operator", undefined, 10);
    const id = await askOnPage(rita, "2500");
    const sam = await signedIn("operator", undefined, 5);
    const elsewhere = await fetchConsole("POST", `/console/wallets/${CLIENT}/EUR`, {
      cookie: sam,
      form: { action: "approve", request: String(id) },
    });
    expect(elsewhere.status).toBe(404);
    const rejected = await fetchConsole("POST", PAGE, { cookie: sam, form: { action: "reject", request: String(id) } });
    expect(rejected.headers.get("location")).toBe(`${PAGE}?notice=rejected`);
    const closed = await fetchConsole("POST", PAGE, { cookie: sam, form: { action: "approve", request: String(id) } });
    expect(closed.status).toBe(409);
    expect(closed.text).toContain("This request is rejected now");
    expect((await fetchConsole("GET", PAGE, { cookie: sam })).text).not.toContain(`request ${id}"`);
  });
});
