/**
 * Dual control as live runs it: a currency without a limit makes every posting wait and its first limit
 * waits for a second admin; every operator made in live is on the Needs attention list (the API's and the
 * console's) with who made it; an export names this deployment and live, and a sandbox export is refused.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signExport, type LedgerExport } from "../../src/wallets/ledger-backup";
import { admin, exportSignature, LEDGER_EXPORT_KEY, madeOperator } from "../admin-helpers";
import { addClient, topUp } from "../helpers";
import { fetchConsole, signIn } from "../console/console-helpers";
import { expectConforms } from "../openapi/conformance";

describe("live fails closed", () => {
  it("a posting in a currency without a limit waits, whatever its amount; its first limit waits for a second admin", async () => {
    await addClient("live-closed", {});
    const cent = await admin("POST", "/admin/wallets/live-closed/SEK/top-ups", {
      amount: "0.01",
      idempotencyKey: "one-cent",
      reason: "the smallest amount",
    });
    expect(cent.body.message).toBe("Posting awaits approval");
    const limits = await admin("GET", "/admin/approval-limits");
    expect(limits.body.data.withoutLimit).toBe("waits");
    const first = await admin("PUT", "/admin/approval-limits/SEK", { limit: 1000 });
    expect(first.body).toMatchObject({
      message: "Limit change awaits approval",
      data: { limit: null, request: { currency: "SEK", limit: 1000, previous: null } },
    });
    expect(await env.DB.prepare(`SELECT 1 FROM approval_limits WHERE currency = 'SEK'`).first()).toBeNull();
  });
});

describe("operators made in live", () => {
  it("are on the Needs attention list for a week, with who made them", async () => {
    const ada = await madeOperator("Live Ada", "admin", 3);
    const made = await madeOperator("Made by Ada", "operator", 0, ada.token);
    const attention = await admin("GET", "/admin/attention");
    await expectConforms("GET", "/admin/attention", attention);
    const listed = attention.body.data.newOperators as { id: string; createdBy: string }[];
    expect(listed.find((row) => row.id === made.id)).toMatchObject({ createdBy: ada.actor });
    expect(listed.find((row) => row.id === ada.id)).toMatchObject({ createdBy: "break-glass" });
    const old = await madeOperator("Made long ago", "operator", 8);
    expect(
      ((await admin("GET", "/admin/attention")).body.data.newOperators as { id: string }[]).map((row) => row.id),
    ).not.toContain(old.id);
    const page = await fetchConsole("GET", "/console", { cookie: await signIn(ada.token) });
    expect(page.text).toContain("Operators created this week");
    expect(page.text).toContain("Made by Ada");
    expect(page.text).toContain(ada.actor);
  });
});

describe("a live export", () => {
  it("names this deployment and live; an export signed for the sandbox is refused", async () => {
    await addClient("live-export", { USD: "0" });
    await topUp("live-export", "USD", "5");
    const exported = await admin("GET", "/admin/wallets/live-export/USD/export");
    expect(exported.body.data).toMatchObject({ deployment: "order-service", mode: "live" });
    expect(exported.body.data.signature).toEqual(await exportSignature(exported.body.data as LedgerExport));
    // The same entries, signed with this very key as the sandbox of this deployment would sign them.
    await addClient("live-export-copy", {});
    const copy = { ...(exported.body.data as LedgerExport), clientId: "live-export-copy", mode: "sandbox" as const };
    const sandboxSigned = await signExport(copy, LEDGER_EXPORT_KEY, { deployment: "order-service", mode: "sandbox" });
    const refused = await admin("POST", "/admin/wallets/live-export-copy/USD/restore", {
      ...copy,
      signature: sandboxSigned,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details.reason).toContain("in this mode");
  });
});
