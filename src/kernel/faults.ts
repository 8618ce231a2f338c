/**
 * Fault seams. Every I/O call the service makes between two writes (a D1 statement, a wallet call, a
 * supplier call, a queue send, an alarm write) goes through `io(seam, call)`, so that a test can make
 * exactly that call fail on demand: before it happens (the call failed), after it happened (its reply was
 * lost although its write committed), and optionally with the object reset at that point (the instance and
 * everything it held in memory are gone).
 *
 * Nothing outside tests ever arms a fault, so in production `io` costs one Map lookup on an empty map.
 * The names of the seams are data (each domain lists its own in a `seams.ts`), so that the fault-injection
 * suite can check it has a case for every one of them.
 */

export type FaultWhen = "before" | "after";

export interface Fault {
  /** `before`: the call is not made; `after`: the call is made and its answer is lost. */
  when: FaultWhen;
  /** Also reset the calling object (its `onReset`), as if the isolate died at this await. */
  reset?: boolean;
  /** How many calls through the seam fail before it lets calls through again (default 1). */
  times?: number;
  /**
   * How many calls through the seam succeed before the first failure (default 0): a seam an operation
   * passes several times (the alarm write, the queue send) can be failed at its second or later call.
   */
  skip?: number;
}

/** The error a seam throws; tests tell an injected fault from a real bug by its class. */
export class InjectedFault extends Error {
  constructor(
    readonly seam: string,
    readonly when: FaultWhen,
  ) {
    super(`injected fault at ${seam} (${when})`);
    this.name = "InjectedFault";
  }
}

interface ArmedFault extends Fault {
  /** Failures still to come. */
  left: number;
  /** Calls still to let through before the first failure. */
  passes: number;
}

const armed = new Map<string, ArmedFault>();
const fired: string[] = [];

/** Test-only: after `skip` calls through `seam`, the next `times` fail as `fault` says. */
export function armFault(seam: string, fault: Fault = { when: "before" }): void {
  armed.set(seam, { ...fault, left: fault.times ?? 1, passes: fault.skip ?? 0 });
}

/** Test-only: no seam fails any more; the log of fired faults is emptied. */
export function clearFaults(): void {
  armed.clear();
  fired.length = 0;
}

/** Test-only: the seams that failed since the last `clearFaults`, in order. */
export function firedFaults(): readonly string[] {
  return fired;
}

/**
 * The armed fault of `seam` if this call fails at `when`. Each call asks once for its fault's own `when`
 * (`before` ahead of the call, `after` once it returned), so that is where a skipped call is counted.
 */
function take(seam: string, when: FaultWhen): ArmedFault | null {
  const fault = armed.get(seam);
  if (fault === undefined || fault.when !== when || fault.left <= 0) return null;
  if (fault.passes > 0) {
    fault.passes -= 1;
    return null;
  }
  fault.left -= 1;
  if (fault.left === 0) armed.delete(seam);
  fired.push(`${seam}:${when}`);
  return fault;
}

/**
 * Runs one I/O call through its seam. `onReset` drops what the calling object holds in memory (or aborts
 * it); it runs when an armed fault asks for a reset.
 */
export async function io<T>(seam: string, call: () => Promise<T>, onReset?: () => void): Promise<T> {
  if (armed.size === 0) return call();
  const before = take(seam, "before");
  if (before !== null) {
    if (before.reset) onReset?.();
    throw new InjectedFault(seam, "before");
  }
  const result = await call();
  const after = take(seam, "after");
  if (after !== null) {
    if (after.reset) onReset?.();
    throw new InjectedFault(seam, "after");
  }
  return result;
}
