/**
 * The console's Approval limits page: every role sees each limit and what it may still move alone; an
 * admin lowers one at once, and asks to raise one, which waits under "Waiting for a second admin" with
 * Approve and Reject for another admin only; a decision is a POST under the Origin check. And the wallet
 * page's note to the client reaches the client's own ledger, its internal reason never does.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { call } from "../helpers";
import { uid } from "../order-helpers";
import { fetchConsole, formKeyOf, PROBE, PROBE_ESCAPED, signedIn } from "./console-helpers";

const PAGE = "/console/limits";

const limitOf = async (currency: string) =>
  (
    await env.DB.prepare(`SELECT amount FROM approval_limits WHERE currency = ?1`)
      .bind(currency)
      .first<{ amount: string }>()
  )?.amount ?? null;

describe("the Approval limits page", () => {
  it("lowers at once, and raises only with a second admin's approval", async () => {
    const ada = await signedIn("admin", "Ada Limits", 10);
    const bo = await signedIn("admin", "Bo Limits", 5);
    const viewer = await signedIn("viewer");
    // The sandbox's first limit of a currency is lowering it from none: at once.
    const first = await fetchConsole("POST", PAGE, {
      cookie: ada,
      form: { action: "set", currency: "nok", limit: "5000" },
    });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe(`${PAGE}?notice=lowered`);
    expect(await limitOf("NOK")).toBe("5000");

    const raised = await fetchConsole("POST", PAGE, {
      cookie: ada,
      form: { action: "set", currency: "NOK", limit: "90000" },
    });
    expect(raised.headers.get("location")).toBe(`${PAGE}?notice=asked`);
    expect(await limitOf("NOK")).toBe("5000");
    const id = (await env.DB.prepare(`SELECT id FROM approval_limit_requests WHERE currency = 'NOK'`).first<{
      id: number;
    }>())!.id;

    const asViewer = await fetchConsole("GET", PAGE, { cookie: viewer });
    expect(asViewer.text).toContain("Waiting for a second admin");
    expect(asViewer.text).toContain("needs the admin role");
    expect(asViewer.text).not.toContain(`aria-label="Approve limit request ${id}"`);
    const asAda = await fetchConsole("GET", PAGE, { cookie: ada });
    expect(asAda.text).toContain("yours: another admin decides it");
    const own = await fetchConsole("POST", PAGE, { cookie: ada, form: { action: "approve", request: String(id) } });
    expect(own.status).toBe(403);
    expect(own.text).toContain("the operator who asked cannot decide it");
    expect(await limitOf("NOK")).toBe("5000");

    const asBo = await fetchConsole("GET", PAGE, { cookie: bo });
    expect(asBo.text).toContain(`aria-label="Approve limit request ${id}"`);
    const forged = await fetchConsole("POST", PAGE, {
      cookie: bo,
      origin: "https://evil.example",
      form: { action: "approve", request: String(id) },
    });
    expect(forged.status).toBe(403);
    expect(await limitOf("NOK")).toBe("5000");
    const approved = await fetchConsole("POST", PAGE, { cookie: bo, form: { action: "approve", request: String(id) } });
    expect(approved.headers.get("location")).toBe(`${PAGE}?notice=approved`);
    expect(await limitOf("NOK")).toBe("90000");
    // A viewer may not post here at all.
    expect(
      (await fetchConsole("POST", PAGE, { cookie: viewer, form: { action: "set", currency: "NOK", limit: "1" } }))
        .status,
    ).toBe(403);
    const refused = await fetchConsole("POST", PAGE, {
      cookie: bo,
      form: { action: "set", currency: "NOK", limit: "1.001" },
    });
    expect(refused.status).toBe(400);
    expect(await limitOf("NOK")).toBe("90000");
  });
});

describe("the wallet page's two texts", () => {
  it("shows the client the note, never the internal reason", async () => {
    const clientId = uid("notes");
    const created = await admin("POST", "/admin/clients", { id: clientId, name: clientId });
    const key = created.body.data.apiKey as string;
    const rita = await signedIn("operator", "Rita Notes", 10);
    const page = `/console/wallets/${clientId}/USD`;
    const drawn = await fetchConsole("GET", page, { cookie: rita });
    const posted = await fetchConsole("POST", page, {
      cookie: rita,
      form: {
        action: "top-up",
        formKey: formKeyOf(drawn.text, "top-up"),
        amount: "40",
        reason: "Matched to statement line 4471, late payer",
        note: PROBE,
      },
    });
    expect(posted.status).toBe(303);
    const ledger = await call("GET", "/wallets/USD/ledger", { key });
    expect(ledger.body.data.movements).toMatchObject([{ kind: "top_up", amount: 40, note: PROBE }]);
    expect(JSON.stringify(ledger.body)).not.toContain("late payer");
    // The operator's page shows both, escaped.
    const after = await fetchConsole("GET", page, { cookie: rita });
    expect(after.text).toContain("late payer");
    expect(after.text).toContain(PROBE_ESCAPED);
    expect(after.text).not.toContain(PROBE);
  });
});
