import { sha256Hex } from "../kernel/crypto";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

/**
 * Built-in supplier for local use and demos. Codes are derived from the line's idempotency key, so they
 * are unique per order line and the same on every retry. A SKU whose supplier config has `fail: true`
 * always fails.
 */
export const sandboxSupplier: Supplier = {
  async issue({ idempotencyKey, line }: IssueRequest): Promise<IssueOutcome> {
    if (line.product.supplierConfig.fail === true) return { kind: "failed", reason: "sandbox SKU is set to fail" };
    const codes = [];
    for (let unit = 0; unit < line.quantity; unit += 1) {
      const hex = (await sha256Hex(`${idempotencyKey}#${unit}`)).slice(0, 20).toUpperCase();
      const pin = `SBX-${hex.slice(0, 5)}-${hex.slice(5, 10)}-${hex.slice(10, 15)}-${hex.slice(15, 20)}`;
      codes.push({ pin, link: `https://redeem.example.com/sandbox/${pin}` });
    }
    return { kind: "issued", codes };
  },
};
