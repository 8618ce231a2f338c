import { componentLog } from "../kernel/log";
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
 * The statuses by which the supplier says that nothing was issued under the request's Idempotency-Key and
 * nothing will be (the contract has it look the key up first, so a repeated key it issued codes for gets
 * those codes, and one still being worked on gets 409). Every other status that is not a 2xx says nothing
 * about what earlier attempts issued: 401/403 refuse our credentials before the key is looked at, and 408,
 * 409, 425, 429 and 5xx are about this attempt only.
 */
const NOTHING_ISSUED = new Set([400, 402, 404, 410, 422]);

const log = componentLog("upstream");

/**
 * The supplier refuses the service's credentials (or there are none to send): the outcome stays unknown
 * (401/403 are answered before the key is looked at), but asking again cannot help until an operator sets
 * UPSTREAM_API_KEY right, so it is an alert line and a reason on the stuck list at once.
 */
function credentialsRefused(reason: string, fields: Record<string, unknown>): IssueOutcome {
  log("error", "upstream refused the service's credentials", { alert: "upstream_credentials", reason, ...fields });
  return { kind: "unknown", reason, needsOperator: true };
}

/** What a non-2xx status tells about the line (docs/fulfilment.md, "Upstream supplier contract"). */
export function outcomeOfStatus(status: number): IssueOutcome {
  if (NOTHING_ISSUED.has(status)) return { kind: "failed", reason: `upstream refused the line (${status})` };
  if (status === 401 || status === 403)
    return credentialsRefused(`upstream refused the service's credentials (${status}): check UPSTREAM_API_KEY`, {
      status,
    });
  if (status === 409) return { kind: "unknown", reason: "upstream answered 409: still issuing under this key" };
  return { kind: "unknown", reason: `upstream answered ${status}` };
}

/**
 * An HTTP supplier: one POST per order line, carrying an Idempotency-Key derived from order and line, so
 * that a repeated request returns the codes of the first instead of issuing new ones.
 * 2xx with the right number of codes: issued. 400, 402, 404, 410, 422: nothing was issued, the line fails.
 * Anything else (a timeout, a network error, 409 "in progress", 5xx, 401/403, an unreadable answer) leaves
 * the outcome unknown: the codes may exist, so the line is asked again and never refunded on it.
 */
export function upstreamSupplier(config: UpstreamConfig): Supplier {
  return {
    async issue({ orderId, idempotencyKey, line }: IssueRequest): Promise<IssueOutcome> {
      if (config.baseUrl === "") return { kind: "failed", reason: "no upstream supplier is configured" };
      // A request without a key would only be refused: none is sent.
      if (config.apiKey === "")
        return credentialsRefused("UPSTREAM_API_KEY is not set: no request was sent to the supplier", { orderId });
      let response: Response;
      try {
        response = await fetch(
          new URL("v1/codes", config.baseUrl.endsWith("/") ? config.baseUrl : `${config.baseUrl}/`),
          {
            method: "POST",
            headers: {
              authorization: `Bearer ${config.apiKey}`,
              "content-type": "application/json",
              "idempotency-key": idempotencyKey,
            },
            body: JSON.stringify({
              productCode:
                typeof line.product.supplierConfig.productCode === "string"
                  ? line.product.supplierConfig.productCode
                  : line.sku,
              quote: line.quote,
              currency: line.product.currency,
              quantity: line.quantity,
              orderId,
            }),
            signal: AbortSignal.timeout(config.timeoutMs),
          },
        );
      } catch (error) {
        // The request may have reached the supplier either way: the outcome is unknown, not failed.
        const name = (error as Error)?.name;
        return {
          kind: "unknown",
          reason:
            name === "TimeoutError" ? `no answer within ${config.timeoutMs} ms` : `network error: ${String(error)}`,
        };
      }
      const text = await response.text().catch(() => "");
      if (!response.ok) return outcomeOfStatus(response.status);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { kind: "unknown", reason: `upstream answered ${response.status} with a body that is not JSON` };
      }
      const parsed = (await answerSchema()).safeParse(body);
      // A 202 "accepted, still issuing" has no codes yet: unknown as well.
      if (!parsed.success)
        return { kind: "unknown", reason: `upstream answered ${response.status} without the contract's codes` };
      if (parsed.data.codes.length !== line.quantity) {
        return {
          kind: "unknown",
          reason: `upstream issued ${parsed.data.codes.length} codes for ${line.quantity} units`,
        };
      }
      return { kind: "issued", codes: parsed.data.codes };
    },
  };
}
