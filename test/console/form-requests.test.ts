/**
 * The console's forms read their fields through the operator API's own schemas (src/console/forms.ts,
 * formRequest), so a form takes exactly what the /admin route behind it takes. Each value below is posted
 * both ways, the field's text as the form sends it and as a JSON body would carry it, and both must agree
 * with the outcome listed beside the value.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { asJson, newFormKey } from "../../src/console/forms";
import { addClient, seedDemo } from "../helpers";
import { admin, FIXED_PRODUCT } from "../admin-helpers";
import { fetchConsole, signedIn } from "./console-helpers";

let cookie: string;
beforeAll(async () => {
  await seedDemo();
  await admin("PUT", "/admin/products/FR-SKU", FIXED_PRODUCT);
  await addClient("fr-wallet", { EUR: "50" });
  cookie = await signedIn("operator");
});

describe("a console form takes what its /admin route takes, and nothing else", () => {
  it.each([
    ["1", true],
    ["250", true],
    ["1000000", true],
    ["1e3", true],
    ["12 ", true],
    ["0", false],
    ["1000001", false],
    ["1.5", false],
    ["-1", false],
    ["abc", false],
    ["0x10", false],
  ] as const)("a SKU's low-stock threshold %j (taken: %s)", async (value, taken) => {
    const form = { action: "threshold", threshold: value };
    const console = await fetchConsole("POST", "/console/catalogue/FR-SKU", { cookie, form });
    const body = { threshold: asJson(value.trim()) };
    const api = await admin("PUT", "/admin/products/FR-SKU/low-stock-threshold", body);
    expect({ console: console.status === 303, api: api.status === 200 }).toEqual({ console: taken, api: taken });
  });

  /** A wallet posting through the console's form and through its /admin route: whether each took it. */
  async function posted(kind: "top-up" | "adjustment", amount: string) {
    const form = { action: kind, amount, reason: "form check", formKey: newFormKey() };
    const console = await fetchConsole("POST", "/console/wallets/fr-wallet/EUR", { cookie, form });
    const route = kind === "top-up" ? "top-ups" : "adjustments";
    const body = { amount, reason: "form check", idempotencyKey: crypto.randomUUID() };
    const api = await admin("POST", `/admin/wallets/fr-wallet/EUR/${route}`, body);
    return { console: console.status === 303, api: api.status === 200 };
  }

  it.each([
    ["top-up", "10", true],
    ["top-up", "12.50", true],
    ["top-up", "0.01", true],
    ["top-up", "-5", false],
    ["top-up", "0", false],
    ["top-up", "1.123", false],
    ["top-up", "1.123456789", false],
    ["top-up", "abc", false],
    ["top-up", "1e3", false],
    ["top-up", "1000000000000000", false],
    ["adjustment", "5", true],
    ["adjustment", "-5", true],
    ["adjustment", "-0.5", true],
    ["adjustment", "0", false],
    ["adjustment", "1.123", false],
    ["adjustment", "abc", false],
  ] as const)("a wallet's %s of %j (taken: %s)", async (kind, value, taken) => {
    expect(await posted(kind, value)).toEqual({ console: taken, api: taken });
  });
});
