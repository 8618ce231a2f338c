/**
 * A failure is the domain's (code and message, src/kernel/failures.ts); its HTTP status is mapped at the
 * edge (src/http/errors.ts). The statuses of the client's order endpoints are the interface's contract.
 */
import { describe, expect, it } from "vitest";
import { ERRORS, HTTP_STATUS } from "../../src/http/errors";
import { errorResponse } from "../../src/http/responses";
import { FAILURES, failure } from "../../src/kernel/failures";

describe("failures and their HTTP statuses", () => {
  it("a domain failure carries no status; the edge answers it with its code's status and the same body", async () => {
    const expired = failure("order_expired");
    expect(expired).toEqual({ ok: false, code: "order_expired", message: "Expired" });
    const response = errorResponse(expired);
    expect(response.status).toBe(419);
    expect(await response.json()).toEqual({ message: "Expired", code: "order_expired" });
    const noWallet = errorResponse(failure("wallet_not_found", { wallet: "GBP" }, "No wallet in currency GBP"));
    expect(noWallet.status).toBe(400);
    const body = { message: "No wallet in currency GBP", code: "wallet_not_found", details: { wallet: "GBP" } };
    expect(await noWallet.json()).toEqual(body);
  });

  it("every code has exactly one status, and ERRORS pairs it with the domain's message", () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.keys(FAILURES).sort());
    for (const [code, message] of Object.entries(FAILURES) as [keyof typeof FAILURES, string][]) {
      expect(ERRORS[code], code).toEqual({ status: HTTP_STATUS[code], message });
    }
  });

  it("the order endpoints' statuses are the interface's", () => {
    const contract = {
      product_list_malformed: 400,
      product_list_too_big: 400,
      quote_mismatch: 400,
      quote_out_of_range: 400,
      insufficient_funds: 400,
      wallet_not_found: 400,
      invalid_order_id: 400,
      unauthenticated: 403,
      product_not_found: 404,
      order_not_found: 404,
      order_already_confirmed: 409,
      order_expired: 419,
      exchange_not_supported: 500,
      out_of_stock: 500,
    };
    for (const [code, status] of Object.entries(contract) as [keyof typeof HTTP_STATUS, number][]) {
      expect(HTTP_STATUS[code], code).toBe(status);
    }
  });
});
