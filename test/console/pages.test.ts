import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import * as attentionPage from "../../src/console/pages/attention";
import * as auditPage from "../../src/console/pages/audit";
import * as auditExport from "../../src/console/pages/audit-export";
import * as cataloguePage from "../../src/console/pages/catalogue";
import * as deadLettersPage from "../../src/console/pages/dead-letters";
import * as productPage from "../../src/console/pages/product";
import { addClient, seedDemo } from "../helpers";
import { admin, FIXED_PRODUCT, snapshot } from "../admin-helpers";
import { callPage, PROBE, PROBE_ESCAPED } from "./pages-helpers";

beforeAll(async () => {
  await seedDemo();
});

/** The page shows the probe only as text: escaped, and never as a tag. */
function expectEscaped(text: string) {
  expect(text).toContain(PROBE_ESCAPED);
  expect(text).not.toContain("<img");
}

async function deadLetter(eventId: string, lastError = "HTTP 503"): Promise<number> {
  const message = {
    clientId: "demo",
    url: "https://hooks.example.com/orders",
    event: {
      id: eventId,
      type: "order.confirmed",
      createdAt: 1,
      data: { orderId: "ord_1", state: "confirmed", reference: PROBE },
    },
  };
  const row = await env.DB.prepare(
    `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES (?1, 'demo', ?2, ?3, 8, ?4, ?5) RETURNING id`,
  )
    .bind(eventId, message.url, JSON.stringify(message), lastError, Date.now())
    .first<{ id: number }>();
  return row!.id;
}

async function auditRows(target: string) {
  const { results } = await env.DB.prepare(
    `SELECT actor, actor_name, action, details FROM audit_log WHERE target = ?1 ORDER BY id`,
  )
    .bind(target)
    .all<{ actor: string; actor_name: string | null; action: string; details: string }>();
  return results;
}

describe("Needs attention (GET /console)", () => {
  it("lists every part escaped, each row linking to where it is fixed", async () => {
    await admin("PUT", "/admin/products/PG-LOW", { ...FIXED_PRODUCT, name: PROBE });
    await admin("PUT", "/admin/products/PG-LOW/low-stock-threshold", { threshold: 5 });
    await addClient("pg-poor", { USD: "3" });
    await admin("PUT", "/admin/wallets/pg-poor/USD/low-balance-threshold", { threshold: "10" });
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO timer_failures (order_id, client_id, timer, failures, last_error, first_failed_at, last_failed_at, next_attempt_at)
       VALUES ('ord_pg_stuck', 'demo', 'outbox', 4, ?1, ?2, ?2, ?2)`,
    )
      .bind(PROBE, now)
      .run();
    const letter = await deadLetter("evt_pg_home", PROBE);
    const page = await callPage(attentionPage, "GET", "/console", { role: "viewer" });
    expect(page.status).toBe(200);
    expectEscaped(page.text);
    expect(page.text).toContain(`href="/console/orders/ord_pg_stuck"`);
    expect(page.text).toContain(`href="/console/dead-letters#dead-letter-${letter}"`);
    expect(page.text).toContain(`href="/console/catalogue/PG-LOW"`);
    expect(page.text).toContain(`href="/console/wallets/pg-poor/USD"`);
    // A viewer changes nothing, so is not shown the threshold form.
    expect(page.text).not.toContain(`name="threshold"`);
    expect((await callPage(attentionPage, "GET", "/console", { role: "operator" })).text).toContain(`name="threshold"`);
  });

  it("sets a wallet's threshold as an operator, audited under their name; refuses a viewer and bad input", async () => {
    await addClient("pg-wallet", { EUR: "50" });
    const before = await snapshot();
    const viewer = await callPage(attentionPage, "POST", "/console", {
      role: "viewer",
      form: { clientId: "pg-wallet", currency: "EUR", threshold: "60" },
    });
    expect(viewer.status).toBe(403);
    for (const form of [
      { clientId: "pg-wallet", currency: "EUR", threshold: "-1" },
      { clientId: "pg-wallet", currency: "EUR", threshold: "1.234" },
      { clientId: "pg-wallet", currency: "GBP", threshold: "1" },
      { clientId: "no such client", currency: "EUR", threshold: "1" },
    ]) {
      const refused = await callPage(attentionPage, "POST", "/console", { role: "operator", form });
      expect(refused.status, JSON.stringify(form)).toBe(400);
      // Beside the field refused, or (a wallet the client does not have) on the form as a whole.
      expect(refused.text, JSON.stringify(form)).toMatch(/aria-invalid="true"|<p class="notice bad" role="alert">/);
    }
    expect(await snapshot()).toEqual(before);
    expect(await env.DB.prepare(`SELECT * FROM wallet_thresholds WHERE client_id = 'pg-wallet'`).first()).toBeNull();

    const set = await callPage(attentionPage, "POST", "/console", {
      role: "operator",
      name: "Olga Operator",
      form: { clientId: "pg-wallet", currency: "eur", threshold: "60" },
    });
    expect(set.status).toBe(303);
    expect(set.headers.get("location")).toBe("/console?notice=threshold");
    expect((await callPage(attentionPage, "GET", "/console", { role: "viewer" })).text).toContain(
      `href="/console/wallets/pg-wallet/EUR"`,
    );
    const rows = await auditRows("wallet:pg-wallet:EUR");
    expect(rows.map((row) => row.action)).toEqual(["wallet.low_balance_threshold.set"]);
    expect(rows[0]!.actor_name).toBe("Olga Operator");
  });
});

describe("Catalogue and stock", () => {
  it("lists SKUs escaped with counts and thresholds, and the rates; only an admin sets a rate", async () => {
    await admin("PUT", "/admin/products/PG-CAT", { ...FIXED_PRODUCT, name: `cat ${PROBE}` });
    const page = await callPage(cataloguePage, "GET", "/console/catalogue", { role: "viewer" });
    expectEscaped(page.text);
    expect(page.text).toContain(`href="/console/catalogue/PG-CAT"`);
    expect(page.text).not.toContain(`name="rate"`);

    const before = await snapshot();
    expect(
      (
        await callPage(cataloguePage, "POST", "/console/catalogue", {
          role: "operator",
          form: { base: "USD", target: "CHF", rate: "0.88" },
        })
      ).status,
    ).toBe(403);
    const bad = await callPage(cataloguePage, "POST", "/console/catalogue", {
      role: "admin",
      form: { base: "USD", target: "USD", rate: "1" },
    });
    expect(bad.text).toContain("base and target currencies must differ");
    expect(await snapshot()).toEqual(before);
    const set = await callPage(cataloguePage, "POST", "/console/catalogue", {
      role: "admin",
      name: "Ada Admin",
      form: { base: "usd", target: "CHF", rate: "0.88" },
    });
    expect(set.status).toBe(303);
    expect(
      (await env.DB.prepare(
        `SELECT rate FROM exchange_rates WHERE base_currency = 'USD' AND target_currency = 'CHF'`,
      ).first())!.rate,
    ).toBe("0.88");
    expect((await auditRows("rate:USD>CHF"))[0]).toMatchObject({ actor: "operator:op_admin", actor_name: "Ada Admin" });
  });
});

describe("A SKU's stock page", () => {
  const csv = (rows: string[]) => `value,pin,link\n${rows.join("\n")}\n`;

  it("refuses an upload with one bad row, naming that row, and adds nothing; then adds a good one", async () => {
    await admin("PUT", "/admin/products/PG-STOCK", FIXED_PRODUCT);
    const before = await snapshot();
    const refused = await callPage(productPage, "POST", "/console/catalogue/PG-STOCK", {
      role: "operator",
      params: { sku: "PG-STOCK" },
      form: {
        action: "upload",
        csv: csv(["10,PG-1,https://r.example/1", "7,PG-2,https://r.example/2", "25.5,PG-3,https://r.example/3"]),
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("nothing was added");
    expect(refused.text).toMatch(/<td>Row 2<\/td><td class="mono">PG-2<\/td>\s*<td>value: 7 is not one of the quotes/);
    expect(refused.text).not.toContain("Row 1<");
    expect(await snapshot()).toEqual(before);

    const file = new File([csv(["10,PG-1,https://r.example/1", "10,PG-1,https://r.example/1b"])], "codes.csv", {
      type: "text/csv",
    });
    const duplicate = await callPage(productPage, "POST", "/console/catalogue/PG-STOCK", {
      role: "operator",
      params: { sku: "PG-STOCK" },
      form: { action: "upload", file },
    });
    expect(duplicate.text).toContain("Row 1<");
    expect(duplicate.text).toContain("Row 2<");
    expect(duplicate.text).toContain("pin PG-1 is repeated in the upload (rows 1, 2)");

    const added = await callPage(productPage, "POST", "/console/catalogue/PG-STOCK", {
      role: "operator",
      name: "Olga Operator",
      params: { sku: "PG-STOCK" },
      form: { action: "upload", csv: csv(["10,PG-1,https://r.example/1", "25.5,PG-3,https://r.example/3"]) },
    });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe("/console/catalogue/PG-STOCK?notice=uploaded&added=2");
    const rows = await auditRows("product:PG-STOCK");
    expect(rows.map((row) => row.action)).toEqual(["product.create", "inventory.upload"]);
    expect(rows[1]!.actor_name).toBe("Olga Operator");
    const page = await callPage(productPage, "GET", "/console/catalogue/PG-STOCK?notice=uploaded&added=2", {
      role: "viewer",
      params: { sku: "PG-STOCK" },
    });
    expect(page.text).toContain("2 codes added.");
    expect(page.text).not.toContain(`name="action"`);
  });

  it("disables, enables and sets the threshold as an operator; a viewer changes nothing", async () => {
    await admin("PUT", "/admin/products/PG-SALE", FIXED_PRODUCT);
    const before = await snapshot();
    const forms: Record<string, string>[] = [
      { action: "disable" },
      { action: "threshold", threshold: "3" },
      { action: "upload", csv: "value,pin,link\n10,V,https://r.example/v\n" },
    ];
    for (const form of forms) {
      expect(
        (
          await callPage(productPage, "POST", "/console/catalogue/PG-SALE", {
            role: "viewer",
            params: { sku: "PG-SALE" },
            form,
          })
        ).status,
      ).toBe(403);
    }
    const bad = await callPage(productPage, "POST", "/console/catalogue/PG-SALE", {
      role: "operator",
      params: { sku: "PG-SALE" },
      form: { action: "threshold", threshold: "0" },
    });
    expect(bad.text).toContain(`aria-invalid="true"`);
    expect(await snapshot()).toEqual(before);
    expect(await env.DB.prepare(`SELECT * FROM stock_thresholds WHERE sku = 'PG-SALE'`).first()).toBeNull();

    const disabled = await callPage(productPage, "POST", "/console/catalogue/PG-SALE", {
      role: "operator",
      params: { sku: "PG-SALE" },
      form: { action: "disable" },
    });
    expect(disabled.status).toBe(303);
    expect((await env.DB.prepare(`SELECT active FROM products WHERE sku = 'PG-SALE'`).first())!.active).toBe(0);
    await callPage(productPage, "POST", "/console/catalogue/PG-SALE", {
      role: "operator",
      params: { sku: "PG-SALE" },
      form: { action: "enable" },
    });
    expect((await env.DB.prepare(`SELECT active FROM products WHERE sku = 'PG-SALE'`).first())!.active).toBe(1);
    await callPage(productPage, "POST", "/console/catalogue/PG-SALE", {
      role: "operator",
      params: { sku: "PG-SALE" },
      form: { action: "threshold", threshold: "3" },
    });
    expect(
      (await env.DB.prepare(`SELECT threshold FROM stock_thresholds WHERE sku = 'PG-SALE'`).first())!.threshold,
    ).toBe(3);
    expect((await auditRows("product:PG-SALE")).map((row) => row.action)).toEqual([
      "product.create",
      "product.disable",
      "product.enable",
      "product.low_stock_threshold.set",
    ]);
  });
});

describe("Dead letters", () => {
  it("lists them escaped and replays one once as an operator; a viewer cannot", async () => {
    const id = await deadLetter("evt_pg_replay", PROBE);
    const page = await callPage(deadLettersPage, "GET", "/console/dead-letters", { role: "viewer" });
    expectEscaped(page.text);
    expect(page.text).toContain(`id="dead-letter-${id}"`);
    expect(page.text).not.toContain(`name="id" value="${id}"`);

    expect(
      (await callPage(deadLettersPage, "POST", "/console/dead-letters", { role: "viewer", form: { id: String(id) } }))
        .status,
    ).toBe(403);
    expect(
      (await env.DB.prepare(`SELECT replayed_at FROM dead_letters WHERE id = ?1`).bind(id).first())!.replayed_at,
    ).toBeNull();

    const replayed = await callPage(deadLettersPage, "POST", "/console/dead-letters", {
      role: "operator",
      name: "Olga Operator",
      form: { id: String(id) },
    });
    expect(replayed.status).toBe(303);
    expect(replayed.headers.get("location")).toBe(`/console/dead-letters?notice=replayed&id=${id}`);
    const again = await callPage(deadLettersPage, "POST", "/console/dead-letters", {
      role: "operator",
      form: { id: String(id) },
    });
    expect(again.text).toContain("was already replayed");
    const rows = await auditRows(`dead_letter:${id}`);
    expect(rows.map((row) => row.action)).toEqual(["webhook.dead_letter.replay"]);
    expect(rows[0]!.actor_name).toBe("Olga Operator");
    expect(
      (await callPage(deadLettersPage, "POST", "/console/dead-letters", { role: "operator", form: { id: "abc" } }))
        .text,
    ).toContain("No such dead letter");
  });
});

describe("Audit log", () => {
  it("filters, shows every field escaped, and exports the same rows as CSV with formula cells neutralised", async () => {
    const now = Date.now();
    const insert = (actor: string, name: string | null, action: string, target: string, details: unknown, at = now) =>
      env.DB.prepare(
        `INSERT INTO audit_log (at, actor, actor_name, action, target, request_id, details) VALUES (?1, ?2, ?3, ?4, ?5, 'req-pg', ?6)`,
      ).bind(at, actor, name, action, target, JSON.stringify(details));
    await env.DB.batch([
      insert("operator:op_x", PROBE, "wallet.top_up", "wallet:pg-audit:USD", { reason: '=HYPERLINK("http://evil")' }),
      insert("operator:op_y", "Yves", "wallet.adjustment", "wallet:pg-audit:USD", { reason: "fine" }),
      insert("operator:op_y", "Yves", "product.disable", "product:PG-AUDIT", {}),
      insert("system:x", "@SUM(A1)", "wallet.top_up", "wallet:pg-audit:USD", {}, Date.parse("2020-01-02T12:00:00Z")),
    ]);
    const all = await callPage(auditPage, "GET", "/console/audit?target=wallet%3Apg-audit%3AUSD", { role: "viewer" });
    expectEscaped(all.text);
    expect(all.text.match(/<tr><td><time/g)).toHaveLength(3);
    const byActor = await callPage(auditPage, "GET", "/console/audit?actor=Yves&action=wallet.", { role: "viewer" });
    expect(byActor.text.match(/<tr><td><time/g)).toHaveLength(1);
    expect(byActor.text).toContain("wallet.adjustment");
    const byDate = await callPage(auditPage, "GET", "/console/audit?from=2020-01-02&to=2020-01-02", { role: "viewer" });
    expect(byDate.text.match(/<tr><td><time/g)).toHaveLength(1);
    expect((await callPage(auditPage, "GET", "/console/audit?from=yesterday", { role: "viewer" })).text).toContain(
      "From is a date like 2026-11-25",
    );
    expect(all.text).toContain(
      `href="/console/audit/export?actor=&amp;action=&amp;target=wallet%3Apg-audit%3AUSD&amp;from=&amp;to="`,
    );

    const exported = await callPage(auditExport, "GET", "/console/audit/export?target=wallet%3Apg-audit%3AUSD", {
      role: "viewer",
    });
    expect(exported.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = exported.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,at,actor,actor_name,action,target,request_id,details");
    expect(lines).toHaveLength(4);
    // Newest first by id; the actor that would run as a formula is text.
    expect(lines[1]).toContain(",system:x,'@SUM(A1),wallet.top_up,");
    // The details cell starts with { and is quoted; a formula inside a JSON string cannot start a cell.
    expect(lines[3]).toContain(`"{""reason"":""=HYPERLINK(\\""http://evil\\"")""}"`);
    expect(lines[3]).toContain(`,operator:op_x,${PROBE},`);
    expect((await callPage(auditExport, "GET", "/console/audit/export?to=nope", { role: "viewer" })).status).toBe(400);
  });
});
