/**
 * The console's Orders page as a search over the order index: results escaped and linking to each order's
 * page, a next-page link that carries `after`, the CSV download with the page's filters (the API's CSV),
 * the exact lookup of an order not yet in the index, refusals of bad filters beside their fields, and the
 * page's word on how current the index is.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { confirmOrder, createOrder, line, orderStub, seedDemo } from "../helpers";
import {
  bareIndexRow,
  ended,
  freshClient,
  indexNow,
  removeBooksRow,
  storedOrder,
  writeBooksRow,
} from "../order-helpers";
import { fetchConsole, PROBE, PROBE_ESCAPED, signedIn } from "./console-helpers";

let client: { id: string; key: string };
const ids: string[] = [];
let probeId: string;
let openId: string;
let viewer: string;

async function processed(reference: string): Promise<string> {
  const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference }, client.key);
  expect(created.status).toBe(200);
  expect((await confirmOrder(created.body.data.id, client.key)).status).toBe(200);
  await ended(created.body.data.id);
  await indexNow(created.body.data.id);
  return created.body.data.id as string;
}

beforeAll(async () => {
  await seedDemo();
  client = await freshClient({ USD: "1000" }, "cs");
  probeId = await processed(PROBE);
  for (let index = 0; index < 3; index += 1) ids.push(await processed(`inv-${index}`));
  const open = await createOrder(
    { productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference: "inv-open" },
    client.key,
  );
  openId = open.body.data.id as string;
  // As an order created a moment ago, whose row is not written yet: its `index` timer run, its row removed.
  expect(await runDurableObjectAlarm(orderStub(openId))).toBe(true);
  await removeBooksRow(await storedOrder(openId));
  viewer = await signedIn("viewer");
}, 60_000);

/** No markup a client wrote: the probe only ever escaped. */
function expectInert(text: string) {
  expect(text).not.toContain(PROBE);
  expect(text).not.toMatch(/<img|<[^>]*\son[a-z]+\s*=/i);
}

describe("the Orders page says how current the index is", () => {
  it("names the newest order's creation and the open orders, and offers no button to bring it up to date", async () => {
    const page = await fetchConsole("GET", "/console/orders", { cookie: await signedIn("operator") });
    expect(page.status).toBe(200);
    const text = page.text.replace(/\s+/g, " ");
    expect(text).toContain("each order writes its row within a few seconds of each change");
    expect(text).toMatch(
      /Its newest order was created \d+ (s|min|h) ago \(<time datetime="[^"]+Z">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>\); \d+ orders? (is|are) still open in it\./,
    );
    expect(page.text).not.toContain("Bring the index up to date now");
    // Nothing to post to any more.
    const posted = await fetchConsole("POST", "/console/orders", { cookie: await signedIn("admin") });
    expect(posted.status).toBe(405);
  });
});

describe("the Orders page's search", () => {
  it("shows an indexed order whose reference is the XSS probe as text, linking to its page", async () => {
    const page = await fetchConsole("GET", `/console/orders?clientId=${client.id}&state=successful`, {
      cookie: viewer,
    });
    expect(page.status).toBe(200);
    expectInert(page.text);
    expect(page.text).toContain(PROBE_ESCAPED);
    expect(page.text).toContain(`href="/console/orders/${probeId}"`);
    for (const id of ids) expect(page.text).toContain(`href="/console/orders/${id}"`);
    expect(page.text).not.toContain(openId);
  });

  it("finds orders by a reference prefix, newest first, and leaves out the rest", async () => {
    const page = await fetchConsole("GET", `/console/orders?clientId=${client.id}&reference=inv-`, { cookie: viewer });
    const at = ids.map((id) => page.text.indexOf(`href="/console/orders/${id}"`));
    expect(at.every((position) => position > 0)).toBe(true);
    expect([...at].sort((a, b) => b - a)).toEqual(at);
    expect(page.text).not.toContain(`href="/console/orders/${probeId}"`);
  });

  it("shows an open order found by its exact reference when the index has none", async () => {
    const page = await fetchConsole("GET", `/console/orders?clientId=${client.id}&reference=inv-open`, {
      cookie: viewer,
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Found by its exact reference");
    expect(page.text).toContain(`href="/console/orders/${openId}"`);
    expect(page.text).toContain("<td>created</td>");
  });

  it("takes the API's cursor as `after`: the page after it shows the older orders only", async () => {
    // 50 a page: this client's 4 indexed orders fit on one (the Next page link is tested below).
    const first = await fetchConsole("GET", `/console/orders?clientId=${client.id}`, { cookie: viewer });
    expect(first.text).not.toContain("Next page");
    const all = await admin("GET", `/admin/orders/search?clientId=${client.id}`);
    expect(all.body.data.orders).toHaveLength(4);
    // The link the page makes when there is more: the API's cursor for the same filters.
    const twoPages = await admin("GET", `/admin/orders/search?clientId=${client.id}&limit=2`);
    const next = twoPages.body.data.next as string;
    const second = await fetchConsole(
      "GET",
      `/console/orders?${new URLSearchParams({ clientId: client.id, after: next })}`,
      { cookie: viewer },
    );
    expect(second.status).toBe(200);
    const shown = all.body.data.orders.map((order: any) => second.text.includes(`href="/console/orders/${order.id}"`));
    expect(shown).toEqual([false, false, true, true]);
  });

  it("links the download to the console's export with the same filters, which answers the API's CSV", async () => {
    const page = await fetchConsole("GET", `/console/orders?clientId=${client.id}&reference=inv-`, { cookie: viewer });
    const href = /href="(\/console\/orders\/export\?[^"]*)"/.exec(page.text)?.[1]?.replaceAll("&amp;", "&");
    expect(href).toBe(
      `/console/orders/export?clientId=${client.id}&state=&sku=&createdFrom=&createdTo=&reference=inv-`,
    );
    const csv = await fetchConsole("GET", href!, { cookie: viewer });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="orders.csv"');
    expect(csv.headers.get("content-security-policy")).toContain("default-src 'none'");
    const api = await admin("GET", `/admin/orders/export?clientId=${client.id}&reference=inv-`);
    expect(csv.text).toBe(api.body);
    expect(csv.text.split("\r\n").filter((row) => row !== "")).toHaveLength(1 + ids.length);
  });

  it("the export needs a session, and refuses bad filters with a 400 that names them", async () => {
    const anonymous = await fetchConsole("GET", `/console/orders/export?clientId=${client.id}`);
    expect(anonymous.status).toBe(303);
    const bad = await fetchConsole("GET", "/console/orders/export?reference=inv-", { cookie: viewer });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("reference: Give the client id with a reference prefix.");
  });

  it("takes the dates as whole days (UTC) and shows bad filters beside their fields", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const page = await fetchConsole(
      "GET",
      `/console/orders?clientId=${client.id}&createdFrom=${today}&createdTo=${today}`,
      {
        cookie: viewer,
      },
    );
    for (const id of [probeId, ...ids]) expect(page.text).toContain(`href="/console/orders/${id}"`);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const none = await fetchConsole("GET", `/console/orders?clientId=${client.id}&createdTo=${yesterday}`, {
      cookie: viewer,
    });
    expect(none.text).toContain("No order in the index matches");
    const bad = await fetchConsole(
      "GET",
      "/console/orders?reference=inv-&createdFrom=yesterday&state=shipped&after=nope",
      { cookie: viewer },
    );
    expect(bad.status).toBe(200);
    expect(bad.text).toContain(`id="field-reference-error"`);
    expect(bad.text).toContain(`id="field-createdFrom-error"`);
    expect(bad.text).toContain(`id="field-state-error"`);
    expect(bad.text).toContain(`id="field-after-error"`);
    expect(bad.text).not.toContain("Results");
  });
});

describe("the Orders page's Next page link", () => {
  it("carries the filters and `after`, and the pages walk every order once", async () => {
    // 55 rows of one client written straight into its books: the page reads only the books.
    const clientId = "cs-many";
    const base = Date.now() - 3_600_000;
    const written: string[] = [];
    for (let index = 0; index < 55; index += 1) {
      const id = `ord_${index.toString(16).padStart(64, "0")}`;
      written.push(id);
      await writeBooksRow(bareIndexRow({ id, clientId, reference: `bulk-${index}`, createdAt: base + index * 1000 }));
    }
    const seen: string[] = [];
    let next: string | null = `/console/orders?clientId=${clientId}&state=successful`;
    let pages = 0;
    while (next !== null) {
      const page = await fetchConsole("GET", next, { cookie: viewer });
      expect(page.status).toBe(200);
      seen.push(...[...page.text.matchAll(/href="\/console\/orders\/(ord_[0-9a-f]{64})"/g)].map((match) => match[1]!));
      const link = /<a href="([^"]*)">Next page<\/a>/.exec(page.text)?.[1]?.replaceAll("&amp;", "&") ?? null;
      if (link !== null) {
        const query = new URL(link, "http://x").searchParams;
        expect(query.get("clientId")).toBe(clientId);
        expect(query.get("state")).toBe("successful");
        expect(query.get("after")).toMatch(/^\d+\.ord_[0-9a-f]{64}$/);
      }
      next = link;
      pages += 1;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual([...written].reverse());
  });
});
