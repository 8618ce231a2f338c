/** The console's wallet page shows the client's low-balance threshold (issue 44), or that none is set. */
import { beforeAll, describe, expect, it } from "vitest";
import * as walletPage from "../../src/console/pages/wallet";
import { call, seedDemo } from "../helpers";
import { freshClient } from "../order-helpers";
import { callPage } from "./pages-helpers";

beforeAll(seedDemo);

describe("the console's wallet page", () => {
  it("shows the threshold the client set, and none once cleared", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    const page = () =>
      callPage(walletPage, "GET", `/console/wallets/${id}/USD`, {
        role: "viewer",
        params: { clientId: id, currency: "USD" },
      });
    expect((await page()).text).toContain("<dt>Low-balance alert</dt><dd>none set by the client</dd>");
    expect((await call("PUT", "/wallets/USD/alert", { key, body: { threshold: "250.50" } })).status).toBe(200);
    const shown = await page();
    expect(shown.status).toBe(200);
    expect(shown.text).toMatch(/<dt>Low-balance alert<\/dt><dd>below 250\.50? [^<]*\(set by the client\)<\/dd>/);
    await call("DELETE", "/wallets/USD/alert", { key });
    expect((await page()).text).toContain("none set by the client");
  });
});
