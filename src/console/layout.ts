/**
 * The frame of every console page: a skip link, the banner with the navigation (the pages the operator's
 * role may see) and who is signed in, the main landmark the skip link leads to, and the console's own
 * stylesheet and htmx, both served by this Worker (no inline script or style: the Content-Security-Policy
 * of console-routes.ts allows neither).
 */
import { roleAllows } from "../operators/roles";
import { HTMX_FILE, STYLESHEET_FILE } from "./assets";
import { html, htmlResponse, type Html } from "./html";
import { navigationEntries } from "./navigation";
import type { SessionOperator } from "./page";

/**
 * htmx's settings: no eval (hx-on and js: values would need it, and the policy forbids it anyway), no
 * inline indicator style, no script tags from swapped content, requests to this origin only.
 */
const HTMX_CONFIG = JSON.stringify({
  allowEval: false,
  includeIndicatorStyles: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
});

export interface LayoutParts {
  title: string;
  /** The signed-in operator; null on the sign-in page, which has no navigation. */
  operator: SessionOperator | null;
  body: Html;
  /** Marks the page's navigation entry as the current page (its path). */
  current?: string;
  /** A value for the page's forms to carry beside the Origin check (a form drawn once, e.g.). */
  csrf?: string;
}

function navigation(operator: SessionOperator, current: string | undefined): Html {
  const items = navigationEntries()
    .filter((entry) => roleAllows(operator.role, entry.minRole))
    .map(
      (entry) =>
        html`<li><a href="${entry.path}" ${entry.path === current ? html`aria-current="page"` : ""}>${entry.label}</a></li>`,
    );
  return html`<nav aria-label="Console"><ul>${items}</ul></nav>
    <div class="who">
      <span>Signed in as <strong>${operator.name}</strong> (${operator.role})</span>
      <form method="post" action="/console/sign-out" class="inline"><button type="submit" class="quiet">Sign out</button></form>
    </div>`;
}

/** A whole console document. */
export function layout({ title, operator, body, current, csrf }: LayoutParts): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="htmx-config" content="${HTMX_CONFIG}" />
    ${csrf !== undefined ? html`<meta name="console-form" content="${csrf}" />` : ""}
    <title>${title} · Order service console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/console/${STYLESHEET_FILE}" />
    <script src="/console/${HTMX_FILE}" defer></script>
  </head>
  <body>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Order service console</span>
      ${operator !== null ? navigation(operator, current) : ""}
    </header>
    <main id="main" tabindex="-1">
      <h1>${title}</h1>
      ${body}
    </main>
  </body>
</html>
`;
}

/** 404 as a page: what the path names does not exist (a client, an order), inside the layout. */
export function notFoundPage(operator: SessionOperator, title: string, current: string, text: string): Response {
  return htmlResponse(
    layout({ title, operator, current, body: html`<p class="notice bad" role="alert">${text}</p>` }),
    404,
  );
}
