/**
 * The operator console at /console: its router. src/app.ts imports this module on the first request under
 * /console, and each page's module is imported on the first request for that page (pages/index.ts), so
 * neither the Worker's start-up nor a client's request pays for any of it.
 *
 * Every answer under /console carries the console's security headers (a strict Content-Security-Policy:
 * this origin's files only, no inline script or style, no framing; nosniff; no referrer to other sites; not stored),
 * whatever answered it. The order of checks for a page: a session (else 303 to the sign-in page), for a
 * POST an Origin equal to this origin (else 403), then the role the page's entry asks (else 403).
 */
import type { IRequest } from "itty-router";
import { clientAddress } from "../http/auth";
import { HTTP_STATUS } from "../http/errors";
import { Refusal } from "../kernel/failures";
import type { Page, RequestContext } from "../http/route";
import { logFailure } from "../kernel/log";
import { roleAllows } from "../operators/roles";
import { endSession, originAllowed, readSession, startSession } from "../operators/sessions";
import { HTMX_ASSET, HTMX_FILE, STYLESHEET, STYLESHEET_FILE } from "./assets";
import { html, htmlResponse } from "./html";
import { layout } from "./layout";
import { setNavigation } from "./navigation";
import type { PageContext, SessionOperator } from "./page";
import { PAGES, type PageEntry } from "./pages/index";
import { FORM_TOO_LARGE, FormError, readForm, seeOther } from "./forms";

setNavigation(
  PAGES.flatMap((page) =>
    page.nav === undefined ? [] : [{ path: page.path, label: page.nav, minRole: page.minRole }],
  ),
);

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  // htmx's requests go to this origin only.
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  // Not no-referrer: under it a browser sends `Origin: null` with a form's POST, which the Origin check
  // must refuse. same-origin keeps the Origin (and the referrer) on this site's requests only.
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};

/** The security headers on any answer; pages and their errors are also never stored. */
function secured(response: Response, cacheControl = "no-store"): Response {
  const answer = new Response(response.body, response);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) answer.headers.set(name, value);
  if (!answer.headers.has("cache-control") || cacheControl === "no-store")
    answer.headers.set("cache-control", cacheControl);
  return answer;
}

/** A page of its own for a refusal or a failure, inside the layout when someone is signed in. */
function problem(status: number, title: string, text: string, operator: SessionOperator | null): Response {
  return htmlResponse(layout({ title, operator, body: html`<p class="notice bad" role="alert">${text}</p>` }), status);
}

/** The page entry and parameters a path names, or null. */
function match(pathname: string): { entry: PageEntry; params: Record<string, string> } | null {
  const given = pathname.replace(/\/+$/, "").split("/");
  for (const entry of PAGES) {
    const pattern = entry.path.split("/");
    if (pattern.length !== given.length) continue;
    const params: Record<string, string> = {};
    let fits = true;
    for (let index = 0; index < pattern.length && fits; index += 1) {
      const part = pattern[index]!;
      let segment: string;
      try {
        segment = decodeURIComponent(given[index]!);
      } catch {
        return null;
      }
      if (part.startsWith(":")) {
        if (segment === "") fits = false;
        else params[part.slice(1)] = segment;
      } else if (part !== segment) fits = false;
    }
    if (fits) return { entry, params };
  }
  return null;
}

/** The sign-in form; `failed` when a token was refused (the message is tied to the field). */
function signInPage(failed: boolean, status = 200, why = "That token is unknown or revoked."): Response {
  const body = html`<form method="post" action="/console/sign-in" class="card" novalidate>
      <p>Sign in with your operator token (an administrator gives it to you once, when your operator is made).</p>
      <div class="field">
        <label for="token">Operator token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required
          ${failed ? html`aria-invalid="true" aria-describedby="token-error"` : ""} />
        ${failed ? html`<p id="token-error" class="error">${why}</p>` : ""}
      </div>
      <button type="submit">Sign in</button>
    </form>`;
  return htmlResponse(layout({ title: "Sign in", operator: null, body }), status);
}

/** 429: too many sign-in tries from this address; the form again, with when to try. */
function tooManySignIns(): Response {
  const response = signInPage(true, 429, "Too many sign-in tries from this address: wait 10 seconds and try again.");
  response.headers.set("retry-after", "10");
  return response;
}

async function signIn(request: Request, env: Env): Promise<Response> {
  // The one form anyone may post: read within the forms' limit as it arrives, like every page's form. A
  // form too large is 413; one that cannot be read holds no token (401).
  const form = await readForm(request).catch((error: unknown) => {
    if (!(error instanceof FormError)) throw error;
    return error.reason === FORM_TOO_LARGE ? null : new Map<string, string>();
  });
  if (form === null) return signInPage(true, 413);
  const token = form.get("token");
  if (token === undefined || token.length === 0 || token.length > 512) return signInPage(true, 401);
  // Each try costs a D1 read: counted against the sender's address as a made-up bearer token is
  // (src/http/admin-auth.ts), so that a flood of guesses meets 429 before D1 is read.
  const { success } = await env.UNKNOWN_KEY_LIMITER.limit({ key: `operator:${clientAddress(request)}` });
  if (!success) return tooManySignIns();
  const started = await startSession(env, token, Date.now());
  if (started === null) return signInPage(true, 401);
  return seeOther("/console", { "set-cookie": started.setCookie });
}

async function servePage(request: Request, context: RequestContext, url: URL): Promise<Response> {
  const { env } = context;
  const found = match(url.pathname);
  const operator = await readSession(request, env, Date.now());
  if (operator === null) return seeOther("/console/sign-in");
  if (found === null) return problem(404, "Not found", "There is no console page at this address.", operator);
  const { entry, params } = found;
  const posting = request.method === "POST";
  const needed = posting ? entry.postRole : entry.minRole;
  if (needed === undefined) return problem(405, "Not allowed", "This page takes no changes.", operator);
  if (!roleAllows(operator.role, needed)) {
    return problem(
      403,
      "Not allowed",
      `Your role (${operator.role}) may not ${posting ? "make this change" : "see this page"}; it needs ${needed}.`,
      operator,
    );
  }
  const module = await entry.load();
  const ctx: PageContext = { request, env, operator, url, params, requestId: context.requestId };
  const handler = posting ? module.post : module.get;
  if (handler === undefined) return problem(405, "Not allowed", "This page takes no changes.", operator);
  try {
    const answer = await handler(ctx);
    return answer instanceof Response ? answer : htmlResponse(answer);
  } catch (error) {
    if (error instanceof Refusal)
      return problem(HTTP_STATUS[error.failure.code], "Could not do that", error.failure.message, operator);
    // A form a page does not draw again (too large, not a form): 400, never the 500 of a failure.
    if (error instanceof FormError) return problem(400, "Could not do that", error.reason, operator);
    throw error;
  }
}

/** Every request under /console. */
async function handleConsole(request: IRequest, context: RequestContext): Promise<Response> {
  const url = new URL(request.url);
  const { env } = context;
  try {
    if (request.method === "GET" && url.pathname === `/console/${STYLESHEET_FILE}`) {
      return secured(
        new Response(STYLESHEET, { headers: { "content-type": "text/css; charset=utf-8" } }),
        "public, max-age=31536000, immutable",
      );
    }
    if (request.method === "GET" && url.pathname === `/console/${HTMX_FILE}`) {
      const file = await env.ASSETS.fetch(new URL(HTMX_ASSET, request.url));
      if (!file.ok)
        throw new Error(
          `htmx is missing from the static assets (${file.status}): run npm ci or node scripts/docs-renderer.mjs`,
        );
      return secured(
        new Response(file.body, { headers: { "content-type": "text/javascript; charset=utf-8" } }),
        "public, max-age=31536000, immutable",
      );
    }
    // A change of any kind, signing in and out included, only from a page of this origin.
    if (request.method === "POST" && !originAllowed(request)) {
      return secured(
        problem(
          403,
          "Not allowed",
          "This change did not come from a console page (its Origin is not this site's).",
          null,
        ),
      );
    }
    if (url.pathname === "/console/sign-in") {
      if (request.method === "POST") return secured(await signIn(request, env));
      if ((await readSession(request, env, Date.now())) !== null) return secured(seeOther("/console"));
      return secured(signInPage(false));
    }
    if (url.pathname === "/console/sign-out") {
      if (request.method !== "POST")
        return secured(problem(405, "Not allowed", "Sign out with the Sign out button.", null));
      return secured(seeOther("/console/sign-in", { "set-cookie": await endSession(request, env) }));
    }
    return secured(await servePage(request, context, url));
  } catch (error) {
    logFailure(error, { step: "console", requestId: context.requestId, route: `${request.method} ${url.pathname}` });
    return secured(
      problem(
        500,
        "Something went wrong",
        "The console could not answer. Try again; a form sent twice is applied once.",
        null,
      ),
    );
  }
}

/** The console's routes: every GET and POST under /console (other methods answer 405 from the router). */
export const consolePages: readonly Page[] = [
  {
    method: "GET",
    path: "/console/*",
    handler: handleConsole,
    summary: "The operator console (pages for people, signed in)",
  },
  {
    method: "POST",
    path: "/console/*",
    handler: handleConsole,
    summary: "The operator console's forms (signed in, same origin)",
  },
];
