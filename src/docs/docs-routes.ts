/**
 * The API's documentation, routed like every other domain's routes: GET /openapi.json (the document of
 * every route, itself included, built by src/http/openapi.ts from the routes' own descriptions) and
 * GET /docs (the page for people that renders it, src/docs/docs-page.ts). The composition root (src/app.ts)
 * hands in the routes and the parts of the document only it knows (src/document-parts.ts); it imports this
 * module on the first request for either path, so none of it, the document's builder included, is
 * evaluated when the Worker starts.
 */
import { API_VERSION, buildOpenApi, OPENAPI_VERSION, type DocumentParts } from "../http/openapi";
import { route, type Page, type Route } from "../http/route";
import { getDocs } from "./docs-page";

/**
 * GET /openapi.json: public, no auth, the document of `routes` and of itself, built once per isolate on
 * first request.
 */
export function openApiRoute(routes: readonly Route[], parts: DocumentParts): Route {
  // Built by the first request; concurrent first requests wait for the same build, and a failed one is
  // tried again by the next request.
  let json: Promise<string> | null = null;
  const build = async (): Promise<string> => JSON.stringify(await buildOpenApi([...routes, document], parts));
  const document: Route = route(
    {
      method: "GET",
      path: "/openapi.json",
      operationId: "getOpenApi",
      tag: "Meta",
      summary: "This document",
      description:
        "The OpenAPI 3.1 description of every route and webhook, generated from the same zod schemas that validate requests. Public, cached for 5 minutes. The same document is checked in as schema/openapi.json.",
      auth: "none",
      data: null,
      errors: [],
      example: {
        data: {
          openapi: OPENAPI_VERSION,
          info: { title: "Order service", version: API_VERSION },
          paths: { "/order/create": { post: { operationId: "createOrder" } } },
        },
      },
    },
    async () => {
      json ??= build().catch((error: unknown) => {
        json = null;
        throw error;
      });
      return new Response(await json, {
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
      });
    },
  );
  return document;
}

/** The pages for people: routed beside the API, and not described in /openapi.json (they are not the API). */
export const docsPages: readonly Page[] = [
  {
    method: "GET",
    path: "/docs/:asset?",
    handler: getDocs,
    summary:
      "The API reference for people: GET /openapi.json rendered in the browser (the renderer is served from /docs/ too)",
  },
];
