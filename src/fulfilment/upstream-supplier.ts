import { once } from "../kernel/once";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

// The answer's schema is zod, which the Worker does not evaluate at start-up (scripts/check-startup.mjs):
// it loads with the first answer an upstream supplier gives, in processing, after the client was answered.
const answerSchema = once(async () => (await import("./upstream-answer")).UpstreamIssueResponse);

export interface UpstreamConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/**
 * An HTTP supplier: one POST per order line, carrying an Idempotency-Key derived from order and line, so
 * that a retried request returns the codes of the first instead of issuing new ones.
 * 2xx with the right number of codes: issued. 408, 425, 429, 5xx, timeouts, network errors and unreadable
 * answers: retry. Any other 4xx: the supplier refuses the line, which fails.
 */
export function upstreamSupplier(config: UpstreamConfig): Supplier {
  return {
    async issue({ orderId, idempotencyKey, line }: IssueRequest): Promise<IssueOutcome> {
      if (config.baseUrl === "") return { kind: "failed", reason: "no upstream supplier is configured" };
      let response: Response;
      try {
        response = await fetch(new URL("v1/codes", config.baseUrl.endsWith("/") ? config.baseUrl : `${config.baseUrl}/`), {
          method: "POST",
          headers: {
            authorization: `Bearer ${config.apiKey}`,
            "content-type": "application/json",
            "idempotency-key": idempotencyKey,
          },
          body: JSON.stringify({
            productCode: typeof line.product.supplierConfig.productCode === "string" ? line.product.supplierConfig.productCode : line.sku,
            quote: line.quote,
            currency: line.product.currency,
            quantity: line.quantity,
            orderId,
          }),
          signal: AbortSignal.timeout(config.timeoutMs),
        });
      } catch (error) {
        const name = (error as Error)?.name;
        return { kind: "retry", reason: name === "TimeoutError" ? `no answer within ${config.timeoutMs} ms` : `network error: ${String(error)}` };
      }
      const text = await response.text().catch(() => "");
      if (!response.ok) {
        const transient = response.status >= 500 || [408, 425, 429].includes(response.status);
        return { kind: transient ? "retry" : "failed", reason: `upstream answered ${response.status}` };
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { kind: "retry", reason: "upstream answer is not JSON" };
      }
      const parsed = (await answerSchema()).safeParse(body);
      if (!parsed.success) return { kind: "retry", reason: "upstream answer does not match the contract" };
      if (parsed.data.codes.length !== line.quantity) {
        return { kind: "retry", reason: `upstream issued ${parsed.data.codes.length} codes for ${line.quantity} units` };
      }
      return { kind: "issued", codes: parsed.data.codes };
    },
  };
}
