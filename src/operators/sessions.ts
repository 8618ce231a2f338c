/**
 * Console sessions. Sign-in exchanges an operator token for a random session id, held in a D1 row and sent
 * as a signed `__Host-` cookie (HttpOnly, Secure, SameSite=Strict, Path=/, no Max-Age: it ends with the
 * browser too). The row is the authority: sign-out and revocation delete it, and every request reads it with
 * its operator's current role and revocation. The signature (HMAC-SHA256 under a key derived from
 * ADMIN_TOKEN) lets a forged or altered cookie be refused before any database read.
 *
 * Timeouts (docs/operator-api.md, "Console sessions"): idle 15 minutes, absolute 8 hours. The idle clock
 * is written at most once a minute, so a session read on every click costs one row read and, at most, one
 * row written per minute.
 */
import { previousTokenOpen } from "../http/admin-auth";
import { derivedHmacKey, randomHex, toHex } from "../kernel/crypto";
import type { Role } from "../kernel/roles";
import { deleteSession, insertSession, sessionById, touchSession } from "./operator-store";
import { liveOperatorOfToken } from "./operator-tokens";

export interface SessionOperator {
  operatorId: string;
  name: string;
  role: Role;
  sessionId: string;
}

export const SESSION_COOKIE = "__Host-console_session";
/** OWASP's range for a low-risk application is 15–30 minutes; this console moves money, so its low end. */
export const IDLE_TIMEOUT_MS = 15 * 60 * 1000;
/** OWASP's absolute timeout for an application used a full office day: 4–8 hours. */
export const ABSOLUTE_TIMEOUT_MS = 8 * 60 * 60 * 1000;
/** The idle clock moves at most this often: the timeout is then exact to within this much. */
export const TOUCH_EVERY_MS = 60 * 1000;

const ATTRIBUTES = "Path=/; Secure; HttpOnly; SameSite=Strict";
const COOKIE_VALUE = /^([0-9a-f]{32})\.([0-9a-f]{64})$/;

/**
 * The signing key of a given ADMIN_TOKEN: HKDF-SHA256 with a label of its own, so the key says nothing
 * usable about the token, and a rotation of ADMIN_TOKEN (after an incident, most likely) ends every
 * session. Derived rather than a secret of its own so that no deployment has one more secret to set.
 */
function signingKey(secret: string): Promise<CryptoKey> {
  return derivedHmacKey(secret, "console-session-v1");
}

function currentSecret(env: Env): string {
  if (typeof env.ADMIN_TOKEN !== "string" || env.ADMIN_TOKEN.length < 16)
    throw new Error("ADMIN_TOKEN is not set: console sessions cannot be signed");
  return env.ADMIN_TOKEN;
}

async function sign(env: Env, sessionId: string): Promise<string> {
  const signature = await crypto.subtle.sign(
    "HMAC",
    await signingKey(currentSecret(env)),
    new TextEncoder().encode(sessionId),
  );
  return toHex(new Uint8Array(signature));
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

/** The session id of a request's cookie if its signature holds (under ADMIN_TOKEN, or the previous one in its window). */
async function signedSessionId(request: Request, env: Env, now: number): Promise<string | null> {
  const value = cookieValue(request, SESSION_COOKIE);
  const match = value === null ? null : COOKIE_VALUE.exec(value);
  if (match === null) return null;
  const [, id, signature] = match as unknown as [string, string, string];
  const secrets = [currentSecret(env)];
  if (previousTokenOpen(env, now)) secrets.push(env.ADMIN_TOKEN_PREVIOUS!);
  for (const secret of secrets) {
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", await signingKey(secret), hexBytes(signature), new TextEncoder().encode(id)))
      return id;
  }
  return null;
}

/** The value of one cookie of the request, or null (the first one of that name, as browsers send the most specific first). */
export function cookieValue(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** Signs an operator in: a new session for a live operator's token, or null for an unknown or revoked one. */
export async function startSession(
  env: Env,
  token: string,
  now: number,
): Promise<{ setCookie: string; operator: SessionOperator } | null> {
  const operator = await liveOperatorOfToken(env.DB, token);
  if (operator === null) return null;
  const sessionId = randomHex(16);
  const signature = await sign(env, sessionId);
  await insertSession(
    env.DB,
    { id: sessionId, operatorId: operator.id, at: now },
    IDLE_TIMEOUT_MS,
    ABSOLUTE_TIMEOUT_MS,
  );
  return {
    setCookie: `${SESSION_COOKIE}=${sessionId}.${signature}; ${ATTRIBUTES}`,
    operator: { operatorId: operator.id, name: operator.name, role: operator.role, sessionId },
  };
}

/**
 * The operator of a request's session, or null: no cookie, a bad signature, no such session (signed out,
 * or the operator revoked), past either timeout, or the operator revoked. Moves the idle clock.
 */
export async function readSession(request: Request, env: Env, now: number): Promise<SessionOperator | null> {
  const sessionId = await signedSessionId(request, env, now);
  if (sessionId === null) return null;
  const row = await sessionById(env.DB, sessionId);
  if (row === null) return null;
  if (
    row.revoked_at !== null ||
    now - row.last_seen_at >= IDLE_TIMEOUT_MS ||
    now - row.created_at >= ABSOLUTE_TIMEOUT_MS
  ) {
    await deleteSession(env.DB, sessionId);
    return null;
  }
  if (now - row.last_seen_at >= TOUCH_EVERY_MS) await touchSession(env.DB, sessionId, now, TOUCH_EVERY_MS);
  return { operatorId: row.operator_id, name: row.name, role: row.role, sessionId };
}

/** Signs out: deletes the session on the server (when the cookie is genuine) and answers a Set-Cookie that clears it. */
export async function endSession(request: Request, env: Env): Promise<string> {
  const sessionId = await signedSessionId(request, env, Date.now());
  if (sessionId !== null) await deleteSession(env.DB, sessionId);
  return `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`;
}

/**
 * Whether a request may change something: a safe method (GET, HEAD) always; any other only when its Origin
 * header is exactly the origin of the URL it was sent to (a missing Origin, or `null`, is refused).
 */
export function originAllowed(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  const origin = request.headers.get("origin");
  return origin !== null && origin === new URL(request.url).origin;
}
