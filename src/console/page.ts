/**
 * What a console page is given and what it answers. The router (console-routes.ts) has checked the session,
 * the role the page's entry asks for and, for a POST, the Origin, before a page module runs.
 */
import type { SessionOperator } from "../operators/sessions";
import type { Html } from "./html";

export type { SessionOperator };

export interface PageContext {
  request: Request;
  env: Env;
  /** The signed-in operator: audit rows of the page's changes name them. */
  operator: SessionOperator;
  url: URL;
  /** The path's `:name` parameters, decoded. */
  params: Record<string, string>;
  /** The request's id, which audit rows and logs carry. */
  requestId: string;
}

/**
 * A page answers a whole document (Html, which the router sends with the console's headers) or a Response
 * of its own (a 303 after a change, a CSV); the router adds the security headers to either.
 */
export type PageAnswer = Html | Response;

export interface PageModule {
  get(ctx: PageContext): Promise<PageAnswer>;
  post?(ctx: PageContext): Promise<PageAnswer>;
}
