/**
 * What a console page is given and what it answers. The router (console-routes.ts) has checked the session,
 * the role the page's entry asks for and, for a POST, the Origin, before a page module runs.
 */
import type { Role } from "../operators/roles";
import type { Html } from "./html";

/**
 * The signed-in operator, as src/operators/sessions.ts (the operators' branch) answers it; declared here
 * until that module is merged, then imported from it.
 */
export interface SessionOperator {
  operatorId: string;
  name: string;
  role: Role;
  sessionId: string;
}

export interface PageContext {
  request: Request;
  env: Env;
  /** The signed-in operator: audit rows of the page's changes name them. */
  operator: SessionOperator;
  url: URL;
  /** The path's `:name` parameters, decoded. */
  params: Record<string, string>;
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
