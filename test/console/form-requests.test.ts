/**
 * The console's forms read their fields through the operator API's own schemas (src/console/forms.ts,
 * formRequest), so a form takes exactly what the /admin route behind it takes. Each value below is posted
 * both ways, the field's text as the form sends it and as a JSON body would carry it, and both must agree
 * on whether it is taken.
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
  it.each(["1", "250", "1000000", "1e3", "0", "1000001", "1.5", "-1", "abc", "0x10", "12 "])(
    "a SKU's low-stock threshold %j",
    async (value) => {
      const console = await fetchConsole("POST", "/console/catalogue/FR-SKU", {
        cookie,
        form: { action: "threshold", threshold: value },
      });
      const api = await admin("PUT", "/admin/products/FR-SKU/low-stock-threshold", {
        threshold: asJson(value.trim()),
      });
      expect({ console: console.status === 303, api: api.status === 200 }, value).toEqual({
        console: api.status === 200,
        api: api.status === 200,
      });
    },
  );

  it.each(["10", "12.50", "0.01", "-5", "0", "1.123", "1.123456789", "abc", "1e3", "1000000000000000"])(
    "a wallet's top-up %j",
    async (value) => {
      const console = await fetchConsole("POST", "/console/wallets/fr-wallet/EUR", {
        cookie,
        form: { action: "top-up", amount: value, reason: "form check", formKey: newFormKey() },
      });
      const api = await admin("POST", "/admin/wallets/fr-wallet/EUR/top-ups", {
        amount: value,
        reason: "form check",
        idempotencyKey: crypto.randomUUID(),
      });
      expect({ console: console.status === 303, api: api.status === 200 }, value).toEqual({
        console: api.status === 200,
        api: api.status === 200,
      });
    },
  );

  it.each(["5", "-5", "0", "-0.5", "1.123", "abc"])("a wallet's adjustment %j", async (value) => {
    const console = await fetchConsole("POST", "/console/wallets/fr-wallet/EUR", {
      cookie,
      form: { action: "adjustment", amount: value, reason: "form check", formKey: newFormKey() },
    });
    const api = await admin("POST", "/admin/wallets/fr-wallet/EUR/adjustments", {
      amount: value,
      reason: "form check",
      idempotencyKey: crypto.randomUUID(),
    });
    expect({ console: console.status === 303, api: api.status === 200 }, value).toEqual({
      console: api.status === 200,
      api: api.status === 200,
    });
  });
});
