/**
 * GET /console/wallets?clientId=: a client's wallets with their balances, each linking to its ledger and
 * its posting forms. Wallets are found by client (the registry is read per client). With a currency too
 * (?clientId=&currency=), it leads to that wallet's page, where a first top-up opens a new wallet.
 */
import { findClient } from "../../clients/client-store";
import { walletCurrencies } from "../../wallets/wallet-registry-store";
import { walletBalance } from "../../treasury/posting-actions";
import { amount } from "../format";
import { seeOther } from "../forms";
import { notice } from "./parts";
import { html, path } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";

export async function get({ env, operator, url }: PageContext) {
  const clientId = (url.searchParams.get("clientId") ?? "").trim().slice(0, 200);
  const currency = (url.searchParams.get("currency") ?? "").trim().toUpperCase();
  if (clientId !== "" && /^[A-Z]{3}$/.test(currency)) return seeOther(path("/console/wallets", clientId, currency));
  const search = html`<form method="get" action="/console/wallets" class="card" role="search" aria-label="Find a client's wallets">
      <div class="field">
        <label for="clientId">Client id</label>
        <input id="clientId" name="clientId" value="${clientId}" required />
      </div>
      <button type="submit">Show wallets</button>
    </form>`;
  if (clientId === "") return layout({ title: "Wallets", operator, current: "/console/wallets", body: search });
  const client = await findClient(env.DB, clientId);
  if (client === null) {
    return layout({
      title: "Wallets",
      operator,
      current: "/console/wallets",
      body: html`${search}${notice("bad", `No client has the id ${clientId}.`)}`,
    });
  }
  const wallets = await walletCurrencies(env.DB, clientId);
  const rows = await Promise.all(
    wallets.map(async ({ currency }) => {
      const balance = await walletBalance(env, clientId, currency);
      return html`<tr><td><a href="${path("/console/wallets", clientId, currency)}">${currency}</a></td><td class="num">${amount(balance, currency)}</td></tr>`;
    }),
  );
  const open = html`<form method="get" action="/console/wallets" class="card" aria-labelledby="open-title">
      <h2 id="open-title">Another currency</h2>
      <input type="hidden" name="clientId" value="${clientId}" />
      <div class="field">
        <label for="currency">Currency</label>
        <span id="currency-hint" class="hint">Three letters, like USD; a first top-up opens the wallet.</span>
        <input id="currency" name="currency" required pattern="[A-Za-z]{3}" maxlength="3" aria-describedby="currency-hint" />
      </div>
      <button type="submit">Open the wallet page</button>
    </form>`;
  const table =
    rows.length === 0
      ? html`<p>${client.name} has no wallet yet; a top-up opens one.</p>`
      : html`<table><caption>Wallets of ${client.name} (${client.id})</caption>
          <thead><tr><th scope="col">Currency</th><th scope="col" class="num">Balance</th></tr></thead><tbody>${rows}</tbody></table>`;
  return layout({ title: "Wallets", operator, current: "/console/wallets", body: html`${search}${table}${open}` });
}
