/**
 * What a check has found: each subject checked (an order, a wallet, a ledger entry, an audit row, a code),
 * with the mismatches its checks found (none: it is in order), and what it counted. A subject's findings
 * replace what earlier checks found of it; a wallet-day's replace all that earlier checks of that day found.
 */
import { lookAt, noneChecked, type Checked, type CheckName } from "./reconciliation-rules";
import type { Finding } from "./reconciliation-store";

export class Findings {
  readonly bySubject = new Map<string, Finding[]>();
  readonly counted: Checked = noneChecked();

  /** The subject was checked: what an earlier check found of it is replaced, by nothing if nothing is found. */
  checked(name: string): Finding[] {
    if (!this.bySubject.has(name)) this.bySubject.set(name, []);
    return this.bySubject.get(name)!;
  }

  /** Reports the mismatches one check finds of one subject. */
  of(name: string, check: CheckName, orderId: string | null, clientId: string | null, currency: string | null) {
    return (problem: string) =>
      this.checked(name).push({
        subject: name,
        check,
        orderId,
        clientId,
        problem,
        lookAt: lookAt(orderId, clientId, currency),
      });
  }

  /** Every mismatch found. */
  all(): Finding[] {
    return [...this.bySubject.values()].flat();
  }
}
