/**
 * GET /docs: the API reference for people, rendering GET /openapi.json with Scalar's API reference
 * (@scalar/api-reference, its standalone browser bundle). The Worker serves the renderer itself, from its
 * static assets (the ASSETS binding; not in the code bundle, which it would triple), at a URL that names
 * its hash, so the page needs nothing but this Worker: no CDN, no outside font (Scalar's own font loading
 * is turned off, the system fonts are used), and a Content-Security-Policy that lets the browser reach
 * this origin only.
 *
 * The page is for a browser, not part of the API: it is routed beside the API's routes (src/docs/docs-routes.ts), so
 * /openapi.json does not describe it.
 */
import type { IRequest } from "itty-router";
import { fail } from "../kernel/failures";
import type { RequestContext } from "../http/route";
import { RENDERER_HASH, RENDERER_VERSION } from "./generated/renderer.js";

/** The renderer's file name under /docs/: a new bundle is a new URL, so it can be cached for good. */
export const RENDERER_FILE = `scalar-${RENDERER_HASH}.js`;

/** Scalar's configuration (its HTML integration reads it from the data-configuration attribute). */
const CONFIGURATION = {
  url: "/openapi.json",
  // Offline and private: no fonts from Scalar's font host (system fonts instead), no telemetry, no
  // "Ask AI" agent (it calls Scalar's servers), no developer toolbar.
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
  showToolbar: "never",
  documentDownloadType: "json",
  metaData: { title: "Order service API reference" },
};

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // The renderer injects its own <style> elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function escapeAttribute(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="generator" content="@scalar/api-reference ${escapeAttribute(RENDERER_VERSION)}" />
    <title>Order service API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <noscript>This page renders <a href="/openapi.json">/openapi.json</a> with JavaScript; the document itself is at that address.</noscript>
    <script id="api-reference" data-url="/openapi.json" data-configuration="${escapeAttribute(JSON.stringify(CONFIGURATION))}"></script>
    <script src="/docs/${RENDERER_FILE}"></script>
  </body>
</html>
`;

/** GET /docs and GET /docs/scalar-<hash>.js: the page, and the renderer it loads. Public, no auth. */
export async function getDocs(request: IRequest, { env }: RequestContext): Promise<Response> {
  const asset = request.params.asset;
  if (asset === undefined) {
    return new Response(PAGE, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "public, max-age=300",
        "content-security-policy": CONTENT_SECURITY_POLICY,
        "x-content-type-options": "nosniff",
      },
    });
  }
  if (asset === RENDERER_FILE) {
    // Asked of the assets by its path; the answer's headers are this route's (the file never changes).
    const file = await env.ASSETS.fetch(new URL(`/docs/${RENDERER_FILE}`, request.url));
    if (!file.ok)
      throw new Error(
        `the docs renderer is missing from the static assets (${file.status}): run npm ci or node scripts/docs-renderer.mjs`,
      );
    return new Response(file.body, {
      headers: {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  }
  fail("route_not_found");
}
