/**
 * One time format on every console page: UTC to the second, in a <time> whose datetime is that instant
 * ("<time datetime="2026-12-07T06:27:34.000Z">2026-12-07 06:27:34 UTC</time>", src/console/format.ts).
 * Each page that shows a time is read through the console's router with something to show, and fails
 * here if it draws a time any other way (an ISO string, a locale string, a time outside <time>, a <time>
 * escaped as text).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { confirmOrder, createOrder, line, seedDemo, topUp } from "../helpers";
import { fetchConsole, signedIn } from "./console-helpers";

const ONE_FORMAT =
  /<time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)">(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC<\/time>/g;
/** A time drawn any other way: ISO or spaced to the minute, a locale's, HTTP's, or markup of a time escaped. */
const OTHER_FORMATS = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\d{1,2}\/\d{1,2}\/\d{4}|\bGMT\b|<time|&lt;time|\d\d:\d\d:\d\d/g;

/** The times a page shows in the one format (each checked against its datetime), and any shown otherwise. */
function timesOf(text: string): { shown: number; others: string[] } {
  let shown = 0;
  const rest = text.replace(ONE_FORMAT, (_whole, iso: string, words: string) => {
    expect(words).toBe(iso.slice(0, 19).replace("T", " "));
    shown += 1;
    return "";
  });
  return { shown, others: rest.match(OTHER_FORMATS) ?? [] };
}

let orderId: string;

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "100");
  const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference: "times-1" });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  orderId = created.body.data.id as string;
  expect((await confirmOrder(orderId)).status).toBe(200);
  expect((await admin("PUT", "/admin/exchange-rates/USD/EUR", { rate: "0.9" })).status).toBe(200);
  expect((await admin("PUT", "/admin/approval-limits/USD", { limit: "1000" })).status).toBe(200);
  expect((await admin("PUT", "/admin/books/retention", { days: 400 })).status).toBe(200);
  await env.DB.prepare(
    `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES ('evt_times', 'demo', ?1, ?2, 8, 'HTTP 503', ?3)`,
  )
    .bind(
      "https://hooks.example.com/orders",
      JSON.stringify({
        clientId: "demo",
        url: "https://hooks.example.com/orders",
        event: { id: "evt_times", type: "order.confirmed", createdAt: 1, data: { orderId, state: "confirmed" } },
      }),
      Date.now(),
    )
    .run();
});

describe("the console's times", () => {
  it("are drawn in the one format on every page that shows one, and in no other", async () => {
    const operator = await signedIn("operator");
    expect((await fetchConsole("POST", "/console/reconciliation", { cookie: operator })).status).toBe(303);
    expect((await fetchConsole("POST", "/console/orders/exports", { cookie: operator, form: {} })).status).toBe(303);
    const showing = [
      "/console",
      `/console/orders/${orderId}`,
      "/console/orders/exports",
      "/console/reconciliation",
      "/console/clients",
      "/console/clients/demo",
      "/console/wallets/demo/USD",
      "/console/limits",
      "/console/catalogue",
      "/console/dead-letters",
      "/console/books",
      "/console/audit",
    ];
    for (const path of [...showing, "/console/orders", "/console/wallets?clientId=demo"]) {
      const page = await fetchConsole("GET", path, { cookie: operator });
      expect(page.status, path).toBe(200);
      const { shown, others } = timesOf(page.text);
      expect(others, path).toEqual([]);
      if (showing.includes(path)) expect(shown, path).toBeGreaterThan(0);
    }
  });
});
