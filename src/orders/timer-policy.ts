/**
 * How a failing timer is retried. The platform retries a throwing alarm only 6 times and then drops it, so
 * a failing timer never makes the order object's alarm throw: the object stores it again with this backoff
 * and retries without limit, and reports the order to the operator once it has failed this many times in a
 * row.
 */
import { cappedBackoff } from "../kernel/backoff";

export const TIMER_RETRY_FIRST_MS = 2_000;
export const TIMER_RETRY_CAP_MS = 5 * 60_000;
export const TIMER_FAILURES_REPORTED_AFTER = 3;

/** The delay before the next run of a timer that has failed `failures` times in a row (1, 2, …). */
export function timerRetryDelayMs(failures: number): number {
  return cappedBackoff(failures, TIMER_RETRY_FIRST_MS, TIMER_RETRY_CAP_MS);
}
