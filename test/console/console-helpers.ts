/**
 * Drives the console as a browser would: forms posted as application/x-www-form-urlencoded with this
 * origin's Origin header, the session cookie carried from sign-in, redirects not followed (tests read
 * them).
 */
import { exports } from "cloudflare:workers";
import { madeOperator } from "../admin-helpers";
import { BASE } from "../helpers";

export const ORIGIN = BASE;
export const PROBE = "<img src=x onerror=alert(1)>";
export const PROBE_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;";

export interface Page {
  status: number;
  headers: Headers;
  text: string;
}

export async function fetchConsole(
  method: "GET" | "POST",
  path: string,
  options: { cookie?: string; form?: Record<string, string>; origin?: string | null } = {},
): Promise<Page> {
  const headers: Record<string, string> = {};
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  let body: string | undefined;
  if (method === "POST") {
    const origin = options.origin === undefined ? ORIGIN : options.origin;
    if (origin !== null) headers.origin = origin;
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form ?? {}).toString();
  }
  const response = await exports.default.fetch(
    new Request(`${BASE}${path}`, { method, headers, body, redirect: "manual" }),
  );
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * A new operator of that role (made through the operator API with the break-glass token), made `daysAgo`
 * days back (dual control judges colleagues by when they were made: admin-helpers.ts), and its token.
 */
export async function newOperator(
  role: "viewer" | "operator" | "admin",
  name = `${role} ${crypto.randomUUID().slice(0, 8)}`,
  daysAgo = 0,
): Promise<string> {
  return (await madeOperator(name, role, daysAgo)).token;
}

/** Signs in with the token and answers the session cookie to send back (`name=value`). */
export async function signIn(token: string): Promise<string> {
  const answer = await fetchConsole("POST", "/console/sign-in", { form: { token } });
  const setCookie = answer.headers.get("set-cookie");
  if (answer.status !== 303 || setCookie === null) throw new Error(`sign-in failed: ${answer.status}`);
  return setCookie.split(";")[0]!;
}

export async function signedIn(role: "viewer" | "operator" | "admin", name?: string, daysAgo = 0): Promise<string> {
  return signIn(await newOperator(role, name, daysAgo));
}

/** The hidden form key of the form whose action field is `action` (wallet forms). */
export function formKeyOf(text: string, action: string): string {
  const form = new RegExp(
    `name="action" value="${action}" />\\s*<input type="hidden" name="formKey" value="([^"]+)"`,
  ).exec(text);
  if (form === null) throw new Error(`no ${action} form with a key on the page`);
  return form[1]!;
}
