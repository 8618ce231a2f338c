/**
 * Structured logs: one JSON object per line, which Workers observability indexes by field. A failure
 * always names where it happened (`step`) and whatever ids the caller knows, so that one query finds every
 * failure of an order, a client or a request.
 */

export interface FailureFields {
  step: string;
  requestId?: string;
  orderId?: string;
  clientId?: string;
  [field: string]: unknown;
}

export function log(level: "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** A `log` that stamps every line with the component that wrote it. */
export function componentLog(component: string): typeof log {
  return (level, message, fields = {}) => log(level, message, { component, ...fields });
}

/** One JSON line for a failure: the step, the ids, and the error's message (and stack, when it has one). */
export function logFailure(error: unknown, fields: FailureFields): void {
  log("error", "failure", {
    ...fields,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  });
}
