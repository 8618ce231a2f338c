/**
 * Every page of the console: where it is, the least role that may see it (and, if it takes POSTs, the least
 * role that may post to it), its name in the navigation, and its module, imported on first use so that
 * only the pages an operator opens are ever evaluated. The console's router (src/console/console-routes.ts)
 * checks the session and the roles before a page module runs; a page whose entry names no postRole
 * cannot be posted to at all.
 *
 * A page module exports `get(ctx)` and optionally `post(ctx)` (PageModule in ../page.ts), in one shape:
 *   - `draw(ctx, …)` reads what the page shows and draws it (with a refused form, if any); `get` is draw.
 *   - `post` reads the form (../forms.ts: readForm, field, formRequest, through the operator API's own
 *     schema), makes the change under the operator's name (../actor.ts) and answers a 303 back to the page
 *     with a `?notice=` code (pages/parts.ts: noticeOf); a refusal is a FormError, drawn again beside its
 *     field (or the form) with the values sent, answered 400. A FormError a page does not draw is the
 *     router's 400.
 *   - The parts every page draws alike are in pages/parts.ts; times and amounts in ../format.ts.
 */
import type { Role } from "../../operators/roles";
import type { PageModule } from "../page";

export interface PageEntry {
  /** The path, `:name` for a parameter (one segment): "/console/orders/:orderId". */
  path: string;
  /** The least role that may GET the page. */
  minRole: Role;
  /** The least role that may POST to it; no POST without one. A page may ask more of single actions. */
  postRole?: Role;
  /** Its name in the navigation; pages without one (an order, a client) are reached through links. */
  nav?: string;
  load: () => Promise<PageModule>;
}

export const PAGES: readonly PageEntry[] = [
  {
    path: "/console",
    minRole: "viewer",
    postRole: "operator",
    nav: "Needs attention",
    load: () => import("./attention"),
  },
  { path: "/console/orders", minRole: "viewer", nav: "Orders", load: () => import("./orders") },
  // Before /console/orders/:orderId, which would take "export" for an order id.
  { path: "/console/orders/export", minRole: "viewer", load: () => import("./orders-export") },
  // Exports across clients; starting one is a read: any role (as POST /admin/orders/exports).
  {
    path: "/console/orders/exports",
    minRole: "viewer",
    postRole: "viewer",
    nav: "Exports",
    load: () => import("./orders-export"),
  },
  { path: "/console/orders/exports/:exportId", minRole: "viewer", load: () => import("./orders-export") },
  // Any role may run it now: a viewer's run reads only; the operator role and above store theirs, which the
  // home page shows (pages/reconciliation.ts).
  {
    path: "/console/reconciliation",
    minRole: "viewer",
    postRole: "viewer",
    load: () => import("./reconciliation"),
  },
  { path: "/console/orders/:orderId", minRole: "viewer", postRole: "operator", load: () => import("./order") },
  { path: "/console/clients", minRole: "viewer", postRole: "admin", nav: "Clients", load: () => import("./clients") },
  { path: "/console/clients/:clientId", minRole: "viewer", postRole: "admin", load: () => import("./client") },
  { path: "/console/wallets", minRole: "viewer", nav: "Wallets", load: () => import("./wallets") },
  {
    path: "/console/wallets/:clientId/:currency",
    minRole: "viewer",
    postRole: "operator",
    load: () => import("./wallet"),
  },
  {
    path: "/console/limits",
    minRole: "viewer",
    postRole: "admin",
    nav: "Approval limits",
    load: () => import("./limits"),
  },
  {
    path: "/console/catalogue",
    minRole: "viewer",
    postRole: "admin",
    nav: "Catalogue and stock",
    load: () => import("./catalogue"),
  },
  { path: "/console/catalogue/:sku", minRole: "viewer", postRole: "operator", load: () => import("./product") },
  {
    path: "/console/dead-letters",
    minRole: "viewer",
    postRole: "operator",
    nav: "Dead letters",
    load: () => import("./dead-letters"),
  },
  { path: "/console/books", minRole: "viewer", postRole: "admin", nav: "Books", load: () => import("./books") },
  { path: "/console/audit", minRole: "viewer", nav: "Audit log", load: () => import("./audit") },
  { path: "/console/audit/export", minRole: "viewer", load: () => import("./audit-export") },
];
