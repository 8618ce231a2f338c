/** Capped exponential backoff, the one schedule of every retry in the service. Imports nothing. */

/**
 * The delay after `failures` failures in a row (1-based; less than 1 counts as 1): `first` after the first,
 * doubling after each further one, never more than `cap`. No jitter: callers that retry many things at
 * once (orders, queue messages) are spread by their own timing already.
 */
export function cappedBackoff(failures: number, first: number, cap: number): number {
  const exponent = Math.min(Math.max(0, Math.floor(failures) - 1), 30);
  return Math.min(cap, first * 2 ** exponent);
}
