/**
 * Rotating ADMIN_TOKEN without downtime: the token a rotation replaced (ADMIN_TOKEN_PREVIOUS) is accepted
 * until ADMIN_TOKEN_PREVIOUS_UNTIL, as a webhook secret's previous secret is, and never after; the audit
 * log tells the two tokens apart. Requests go through the Worker's router with the secrets of each case.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { handleRequest } from "../../src/app";
import { MAX_ADMIN_TOKEN_OVERLAP_MS, previousTokenOpen } from "../../src/http/admin-auth";
import { sha256Hex } from "../../src/kernel/crypto";
import { BASE } from "../helpers";

const NEW = "new-admin-token-0123456789";
const OLD = "old-admin-token-0123456789";
const HOUR = 60 * 60 * 1000;

function withSecrets(
  secrets: Partial<Record<"ADMIN_TOKEN" | "ADMIN_TOKEN_PREVIOUS" | "ADMIN_TOKEN_PREVIOUS_UNTIL", string>>,
): Env {
  return {
    ...env,
    ADMIN_TOKEN: NEW,
    ADMIN_TOKEN_PREVIOUS: undefined,
    ADMIN_TOKEN_PREVIOUS_UNTIL: undefined,
    ...secrets,
  };
}

async function asAdmin(
  on: Env,
  token: string,
  method = "GET",
  path = "/admin/clients?limit=1",
  body?: unknown,
): Promise<number> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const exec = createExecutionContext();
  const response = await handleRequest(
    new Request(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    on,
    exec,
  );
  await waitOnExecutionContext(exec);
  await response.arrayBuffer();
  return response.status;
}

afterEach(() => vi.restoreAllMocks());

describe("ADMIN_TOKEN rotation with an overlap window", () => {
  it("accepts the previous token until its deadline, the new one throughout, and neither anything else", async () => {
    const open = withSecrets({
      ADMIN_TOKEN_PREVIOUS: OLD,
      ADMIN_TOKEN_PREVIOUS_UNTIL: new Date(Date.now() + HOUR).toISOString(),
    });
    expect(await asAdmin(open, NEW)).toBe(200);
    expect(await asAdmin(open, OLD)).toBe(200);
    expect(await asAdmin(open, `${OLD}x`)).toBe(403);
    expect(await asAdmin(open, "sk_test_demo")).toBe(403);

    const closed = withSecrets({
      ADMIN_TOKEN_PREVIOUS: OLD,
      ADMIN_TOKEN_PREVIOUS_UNTIL: new Date(Date.now() - 1000).toISOString(),
    });
    expect(await asAdmin(closed, NEW)).toBe(200);
    expect(await asAdmin(closed, OLD)).toBe(403);
  });

  it("accepts no previous token without a valid deadline, or with one further away than the longest overlap", async () => {
    for (const until of [
      undefined,
      "",
      "tomorrow",
      "not-a-date",
      new Date(Date.now() + MAX_ADMIN_TOKEN_OVERLAP_MS + HOUR).toISOString(),
    ]) {
      const on = withSecrets({
        ADMIN_TOKEN_PREVIOUS: OLD,
        ...(until === undefined ? {} : { ADMIN_TOKEN_PREVIOUS_UNTIL: until }),
      });
      expect(await asAdmin(on, OLD), `until ${until}`).toBe(403);
      expect(await asAdmin(on, NEW), `until ${until}`).toBe(200);
    }
  });

  it("accepts no short previous token, and an unset previous token matches nothing (not even an empty bearer)", async () => {
    const until = new Date(Date.now() + HOUR).toISOString();
    expect(
      await asAdmin(withSecrets({ ADMIN_TOKEN_PREVIOUS: "short", ADMIN_TOKEN_PREVIOUS_UNTIL: until }), "short"),
    ).toBe(403);
    expect(await asAdmin(withSecrets({ ADMIN_TOKEN_PREVIOUS_UNTIL: until }), "")).toBe(403);
    expect(await asAdmin(withSecrets({ ADMIN_TOKEN_PREVIOUS_UNTIL: until }), "undefined")).toBe(403);
  });

  it("audits each token under its own label, and logs every use of the previous one", async () => {
    const warn = vi.spyOn(console, "warn");
    const on = withSecrets({
      ADMIN_TOKEN_PREVIOUS: OLD,
      ADMIN_TOKEN_PREVIOUS_UNTIL: new Date(Date.now() + HOUR).toISOString(),
    });
    expect(await asAdmin(on, OLD, "POST", "/admin/clients", { id: "rot-old", name: "Old token's client" })).toBe(200);
    expect(await asAdmin(on, NEW, "POST", "/admin/clients", { id: "rot-new", name: "New token's client" })).toBe(200);
    const { results } = await env.DB.prepare(
      `SELECT actor, target FROM audit_log WHERE target IN ('client:rot-old', 'client:rot-new') ORDER BY id`,
    ).all<{ actor: string; target: string }>();
    expect(results).toEqual([
      { actor: `admin:${(await sha256Hex(OLD)).slice(0, 8)}`, target: "client:rot-old" },
      { actor: `admin:${(await sha256Hex(NEW)).slice(0, 8)}`, target: "client:rot-new" },
    ]);
    const lines = warn.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
      .filter((line) => line.message === "previous admin token used");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ component: "admin-auth", actor: `admin:${(await sha256Hex(OLD)).slice(0, 8)}` });
    expect(JSON.stringify(lines[0])).not.toContain(OLD);
  });

  it("previousTokenOpen: the window is open strictly before the deadline", () => {
    const until = Date.parse("2026-11-25T12:00:00Z");
    const secrets = { ADMIN_TOKEN_PREVIOUS: OLD, ADMIN_TOKEN_PREVIOUS_UNTIL: "2026-11-25T12:00:00Z" };
    expect(previousTokenOpen(secrets, until - 1)).toBe(true);
    expect(previousTokenOpen(secrets, until)).toBe(false);
    expect(previousTokenOpen(secrets, until - MAX_ADMIN_TOKEN_OVERLAP_MS)).toBe(true);
    expect(previousTokenOpen(secrets, until - MAX_ADMIN_TOKEN_OVERLAP_MS - 1)).toBe(false);
  });
});
