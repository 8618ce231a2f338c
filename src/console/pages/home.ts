/**
 * GET /console: where a signed-in operator lands. The "Needs attention" page (stuck orders, dead letters,
 * low stock and low balances) takes this path when it lands (the console-pages branch); until then the
 * home page leads to the console's pages.
 */
import { roleAllows } from "../../operators/roles";
import { html } from "../html";
import { layout } from "../layout";
import { navigationEntries } from "../navigation";
import type { PageContext } from "../page";

export async function get({ operator }: PageContext) {
  const links = navigationEntries()
    .filter((entry) => entry.path !== "/console" && roleAllows(operator.role, entry.minRole))
    .map((entry) => html`<li><a href="${entry.path}">${entry.label}</a></li>`);
  return layout({ title: "Console", operator, current: "/console", body: html`<ul>${links}</ul>` });
}
