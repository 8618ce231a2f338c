/**
 * The Needs attention, catalogue, dead-letter and audit pages through the console's router, as a browser
 * reaches them: their security headers, the Origin check and the role check of each page that posts, and
 * the probe escaped on the wire.
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, seedDemo } from "../helpers";
import { admin, FIXED_PRODUCT, snapshot } from "../admin-helpers";
import { fetchConsole, ORIGIN, PROBE, PROBE_ESCAPED, signedIn } from "./console-helpers";

beforeAll(async () => {
  await seedDemo();
});

const PAGES = [
  "/console",
  "/console/catalogue",
  "/console/catalogue/PR-SKU",
  "/console/dead-letters",
  "/console/audit",
];

describe("the pages of Needs attention, catalogue, dead letters and audit, routed", () => {
  it("are served to a viewer with the console's policy, the probe only as text", async () => {
    await admin("PUT", "/admin/products/PR-SKU", { ...FIXED_PRODUCT, name: PROBE });
    await admin("PUT", "/admin/products/PR-SKU/low-stock-threshold", { threshold: 2 });
    const viewer = await signedIn("viewer", `viewer ${PROBE}`);
    for (const path of PAGES) {
      const page = await fetchConsole("GET", path, { cookie: viewer });
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-security-policy"), path).toContain("script-src 'self'");
      expect(page.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(page.text, path).toContain(PROBE_ESCAPED);
      expect(page.text, path).not.toContain("<img");
    }
    const csv = await fetchConsole("GET", "/console/audit/export?target=product%3APR-SKU", { cookie: viewer });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect((await fetchConsole("GET", "/console/catalogue/NO-SUCH-SKU", { cookie: viewer })).status).toBe(404);
    expect((await fetchConsole("GET", "/console/dead-letters")).status).toBe(303);
  });

  it("refuse a change from another origin, without one, or from a role that may not make it, changing nothing", async () => {
    await admin("PUT", "/admin/products/PR-GUARD", FIXED_PRODUCT);
    const row = await env.DB.prepare(
      `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES ('evt_pr', 'demo', 'https://hooks.example.com/o', ?1, 8, 'HTTP 503', 1) RETURNING id`,
    )
      .bind(
        JSON.stringify({
          clientId: "demo",
          url: "https://hooks.example.com/o",
          event: {
            id: "evt_pr",
            type: "order.confirmed",
            createdAt: 1,
            data: { orderId: "ord_1", state: "confirmed", reference: "r" },
          },
        }),
      )
      .first<{ id: number }>();
    const operator = await signedIn("operator");
    const viewer = await signedIn("viewer");
    const changes: [string, Record<string, string>][] = [
      ["/console", { clientId: "demo", currency: "USD", threshold: "5" }],
      ["/console/catalogue/PR-GUARD", { action: "disable" }],
      ["/console/catalogue/PR-GUARD", { action: "threshold", threshold: "4" }],
      ["/console/dead-letters", { id: String(row!.id) }],
    ];
    const before = {
      tables: await snapshot(),
      letters: (await env.DB.prepare(`SELECT * FROM dead_letters`).all()).results,
    };
    for (const [path, form] of changes) {
      expect(
        (await fetchConsole("POST", path, { cookie: operator, form, origin: "https://evil.example" })).status,
        path,
      ).toBe(403);
      expect((await fetchConsole("POST", path, { cookie: operator, form, origin: null })).status, path).toBe(403);
      expect((await fetchConsole("POST", path, { cookie: viewer, form })).status, path).toBe(403);
    }
    // A rate is an admin's: an operator is refused by the page's entry.
    expect(
      (
        await fetchConsole("POST", "/console/catalogue", {
          cookie: operator,
          form: { base: "USD", target: "SEK", rate: "10" },
        })
      ).status,
    ).toBe(403);
    expect({
      tables: await snapshot(),
      letters: (await env.DB.prepare(`SELECT * FROM dead_letters`).all()).results,
    }).toEqual(before);
    expect(await env.DB.prepare(`SELECT * FROM stock_thresholds WHERE sku = 'PR-GUARD'`).first()).toBeNull();

    // The same changes from this origin, as an operator, go through.
    for (const [path, form] of changes) {
      const done = await fetchConsole("POST", path, { cookie: operator, form });
      expect(done.status, `${path} ${done.text.slice(0, 300)}`).toBe(303);
    }
    expect(
      (await env.DB.prepare(`SELECT replayed_at FROM dead_letters WHERE id = ?1`).bind(row!.id).first())!.replayed_at,
    ).not.toBeNull();
  });

  it("answer a form larger than the limit 400 on every page that reads one, changing nothing", async () => {
    const admin = await signedIn("admin");
    const big = { filler: "x".repeat(17 * 1024) };
    const paths = [
      "/console",
      "/console/catalogue",
      "/console/dead-letters",
      "/console/orders/exports",
      "/console/orders/ord_0000000000000000000000000000000000000000000000000000000000000000",
      "/console/clients",
      "/console/clients/demo",
      "/console/wallets/demo/USD",
      "/console/limits",
      "/console/books",
    ];
    const before = await snapshot();
    for (const path of paths) {
      const refused = await fetchConsole("POST", path, { cookie: admin, form: big });
      expect(refused.status, path).toBe(400);
      expect(refused.text, path).toContain("The form is too large.");
    }
    // A SKU's page takes an upload of up to 1 MiB, and no more.
    const upload = { action: "upload", csv: "x".repeat(1_048_576 + 16 * 1024 + 1) };
    const refused = await fetchConsole("POST", "/console/catalogue/PR-SKU", { cookie: admin, form: upload });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("The form is too large.");
    expect(await snapshot()).toEqual(before);
  });

  it("stops reading a form sent without a length once it passes the limit", async () => {
    const admin = await signedIn("admin");
    // 20 KiB, then a body that never ends: a page that read the whole body first would wait forever.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`filler=${"x".repeat(20 * 1024)}`));
      },
    });
    const before = await snapshot();
    const response = await exports.default.fetch(
      new Request(`${BASE}/console/books`, {
        method: "POST",
        headers: { cookie: admin, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
        body,
        redirect: "manual",
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("The form is too large.");
    expect(await snapshot()).toEqual(before);
  }, 10_000);
});
