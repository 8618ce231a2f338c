import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { createOperator, revokeOperator } from "../../src/operators/operators";
import { roleAllows, type Role } from "../../src/operators/roles";
import {
  ABSOLUTE_TIMEOUT_MS,
  endSession,
  IDLE_TIMEOUT_MS,
  originAllowed,
  readSession,
  SESSION_COOKIE,
  startSession,
  TOUCH_EVERY_MS,
} from "../../src/operators/sessions";

const BY = { actor: { kind: "break-glass" as const, label: "admin:test" }, requestId: "req_test" };
const T0 = Date.parse("2026-11-25T09:00:00Z");

async function operator(role: Role = "operator") {
  return createOperator(env.DB, BY, { name: `Dana ${crypto.randomUUID().slice(0, 6)}`, role });
}

/** A console request carrying the cookie of a Set-Cookie header. */
function withCookie(setCookie: string, init: RequestInit = {}): Request {
  const pair = setCookie.split(";")[0]!;
  return new Request("https://orders.test/console", {
    ...init,
    headers: { cookie: `other=1; ${pair}`, ...(init.headers ?? {}) },
  });
}

async function sessionRows(): Promise<{ id: string; last_seen_at: number }[]> {
  return (
    await env.DB.prepare(`SELECT id, last_seen_at FROM console_sessions ORDER BY created_at`).all<{
      id: string;
      last_seen_at: number;
    }>()
  ).results;
}

beforeEach(async () => {
  await env.DB.prepare(`DELETE FROM console_sessions`).run();
});

describe("roles", () => {
  it("admin includes operator includes viewer, and nothing more", () => {
    const table: [Role, Role, boolean][] = [
      ["viewer", "viewer", true],
      ["viewer", "operator", false],
      ["viewer", "admin", false],
      ["operator", "viewer", true],
      ["operator", "operator", true],
      ["operator", "admin", false],
      ["admin", "viewer", true],
      ["admin", "operator", true],
      ["admin", "admin", true],
    ];
    for (const [role, needed, allowed] of table)
      expect(roleAllows(role, needed), `${role} for ${needed}`).toBe(allowed);
  });
});

describe("console sessions", () => {
  it("sign-in sets a __Host- cookie, HttpOnly, Secure, SameSite=Strict, Path=/, and reads back the operator", async () => {
    const { operator: made, token } = await operator("viewer");
    const started = await startSession(env, token, T0);
    expect(started).not.toBeNull();
    const { setCookie, operator: signedIn } = started!;
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[0-9a-f]{32}\\.[0-9a-f]{64}; `));
    const attributes = setCookie.split("; ").slice(1);
    expect(attributes.sort()).toEqual(["HttpOnly", "Path=/", "SameSite=Strict", "Secure"]);
    expect(signedIn).toEqual({
      operatorId: made.id,
      name: made.name,
      role: "viewer",
      sessionId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(await readSession(withCookie(setCookie), env, T0 + 1000)).toEqual(signedIn);
    // The token itself is nowhere in the cookie.
    expect(setCookie).not.toContain(token);
  });

  it("refuses an unknown token, ADMIN_TOKEN and a revoked operator's token", async () => {
    expect(await startSession(env, "opt_" + "0".repeat(64), T0)).toBeNull();
    expect(await startSession(env, env.ADMIN_TOKEN, T0)).toBeNull();
    const { operator: made, token } = await operator();
    await revokeOperator(env.DB, BY, made.id);
    expect(await startSession(env, token, T0)).toBeNull();
    expect(await sessionRows()).toEqual([]);
  });

  it("refuses a cookie whose id or signature was altered, or signed under another key", async () => {
    const { token } = await operator();
    const { setCookie } = (await startSession(env, token, T0))!;
    const value = setCookie.split(";")[0]!.split("=")[1]!;
    const [id, signature] = value.split(".") as [string, string];
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "0" ? "1" : "0") + text.slice(at + 1);
    for (const forged of [
      `${flip(id, 0)}.${signature}`,
      `${id}.${flip(signature, 63)}`,
      `${id}.${signature}0`,
      id,
      `${id}.`,
    ]) {
      const request = new Request("https://orders.test/console", {
        headers: { cookie: `${SESSION_COOKIE}=${forged}` },
      });
      expect(await readSession(request, env, T0 + 1000), forged).toBeNull();
    }
    // The same id, signed under another ADMIN_TOKEN (a rotation without an overlap window): refused.
    const rotated = { ...env, ADMIN_TOKEN: "another-admin-token-0123" } as Env;
    expect(await readSession(withCookie(setCookie), rotated, T0 + 1000)).toBeNull();
    // ...and still accepted while the previous token's window is open.
    const overlapping = {
      ...rotated,
      ADMIN_TOKEN_PREVIOUS: env.ADMIN_TOKEN,
      ADMIN_TOKEN_PREVIOUS_UNTIL: new Date(T0 + 3_600_000).toISOString(),
    } as Env;
    expect(await readSession(withCookie(setCookie), overlapping, T0 + 1000)).not.toBeNull();
    // The genuine cookie still works: none of the forgeries ended it.
    expect(await readSession(withCookie(setCookie), env, T0 + 2000)).not.toBeNull();
  });

  it("ends after IDLE_TIMEOUT_MS without a request, and moves the idle clock at most once a minute", async () => {
    const { token } = await operator();
    const { setCookie } = (await startSession(env, token, T0))!;
    const request = () => withCookie(setCookie);
    // Within a minute: read, not written.
    expect(await readSession(request(), env, T0 + TOUCH_EVERY_MS - 1)).not.toBeNull();
    expect((await sessionRows())[0]!.last_seen_at).toBe(T0);
    // Past a minute: the idle clock moves.
    const later = T0 + IDLE_TIMEOUT_MS - 1;
    expect(await readSession(request(), env, later)).not.toBeNull();
    expect((await sessionRows())[0]!.last_seen_at).toBe(later);
    // So a session used within each idle period lives on past IDLE_TIMEOUT_MS from its start...
    expect(await readSession(request(), env, later + IDLE_TIMEOUT_MS - 1)).not.toBeNull();
    // ...and ends when one idle period passes without a request.
    const idleFrom = later + IDLE_TIMEOUT_MS - 1;
    expect(await readSession(request(), env, idleFrom + IDLE_TIMEOUT_MS)).toBeNull();
    expect(await sessionRows()).toEqual([]);
  });

  it("ends ABSOLUTE_TIMEOUT_MS after sign-in however busy it is", async () => {
    const { token } = await operator();
    const { setCookie } = (await startSession(env, token, T0))!;
    let now = T0;
    while (now + IDLE_TIMEOUT_MS / 2 < T0 + ABSOLUTE_TIMEOUT_MS) {
      now += IDLE_TIMEOUT_MS / 2;
      expect(await readSession(withCookie(setCookie), env, now), `at ${now - T0} ms`).not.toBeNull();
    }
    expect(await readSession(withCookie(setCookie), env, T0 + ABSOLUTE_TIMEOUT_MS - 1)).not.toBeNull();
    expect(await readSession(withCookie(setCookie), env, T0 + ABSOLUTE_TIMEOUT_MS)).toBeNull();
    expect(await sessionRows()).toEqual([]);
  });

  it("revoking the operator ends its sessions at once, and a role change shows on the next request", async () => {
    const { operator: made, token } = await operator("admin");
    const first = (await startSession(env, token, T0))!;
    const second = (await startSession(env, token, T0 + 10))!;
    await env.DB.prepare(`UPDATE operators SET role = 'viewer' WHERE id = ?1`).bind(made.id).run();
    expect((await readSession(withCookie(first.setCookie), env, T0 + 1000))!.role).toBe("viewer");
    await revokeOperator(env.DB, BY, made.id);
    expect(await readSession(withCookie(first.setCookie), env, T0 + 2000)).toBeNull();
    expect(await readSession(withCookie(second.setCookie), env, T0 + 2000)).toBeNull();
    expect(await sessionRows()).toEqual([]);
  });

  it("a revoked operator's session ends even if its row outlived the revocation", async () => {
    const { operator: made, token } = await operator();
    const { setCookie } = (await startSession(env, token, T0))!;
    await env.DB.prepare(`UPDATE operators SET revoked_at = ?2 WHERE id = ?1`).bind(made.id, T0).run();
    expect(await readSession(withCookie(setCookie), env, T0 + 1000)).toBeNull();
  });

  it("sign-out deletes the session on the server and clears the cookie; the old cookie is then refused", async () => {
    const { token } = await operator();
    const kept = (await startSession(env, token, T0))!;
    const { setCookie } = (await startSession(env, token, T0))!;
    const cleared = await endSession(withCookie(setCookie), env);
    expect(cleared).toBe(`${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`);
    // A copy of the cookie kept by an attacker is as dead as the browser's.
    expect(await readSession(withCookie(setCookie), env, T0 + 1000)).toBeNull();
    expect((await sessionRows()).map((row) => row.id)).toEqual([kept.operator.sessionId]);
    // Signing out without a session answers the clearing cookie all the same.
    expect(await endSession(new Request("https://orders.test/console"), env)).toBe(cleared);
  });

  it("a new sign-in clears the operator's sessions that timed out", async () => {
    const { token } = await operator();
    await startSession(env, token, T0);
    await startSession(env, token, T0 + IDLE_TIMEOUT_MS - 1);
    const fresh = (await startSession(env, token, T0 + IDLE_TIMEOUT_MS + 1))!;
    expect((await sessionRows()).length).toBe(2);
    expect((await sessionRows()).map((row) => row.id)).toContain(fresh.operator.sessionId);
  });
});

describe("originAllowed", () => {
  const post = (headers: Record<string, string>) =>
    new Request("https://orders.test/console/wallets", { method: "POST", headers });
  it("lets a POST through only with the request's own origin", () => {
    expect(originAllowed(post({ origin: "https://orders.test" }))).toBe(true);
    expect(originAllowed(post({ origin: "https://evil.test" }))).toBe(false);
    expect(originAllowed(post({ origin: "http://orders.test" }))).toBe(false);
    expect(originAllowed(post({ origin: "https://orders.test:8443" }))).toBe(false);
    expect(originAllowed(post({ origin: "null" }))).toBe(false);
    expect(originAllowed(post({}))).toBe(false);
    expect(
      originAllowed(
        new Request("https://orders.test/console", { method: "DELETE", headers: { origin: "https://evil.test" } }),
      ),
    ).toBe(false);
  });
  it("lets safe methods through", () => {
    expect(
      originAllowed(new Request("https://orders.test/console", { headers: { origin: "https://evil.test" } })),
    ).toBe(true);
  });
});
