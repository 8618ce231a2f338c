/**
 * Which due wallet-days a pass takes (docs/operator-api.md, Reconciliation, "Bounded, and no client can
 * stall another"): each once, however many sources or pages name it; the first `days` for the pass's own
 * checks, the next `handOut` for the queue, at most `perClient` of one client in all; the rest left to the
 * next pass. Pure: the pages are read by due-pages.ts.
 */
import { dayKey, type WalletDay } from "./day-rules";
import type { DueDay } from "./day-store";

/** What one pass takes at most. */
export interface ShareBudget {
  /** Wallet-days checked by the pass itself. */
  days: number;
  /** Wallet-days handed to the queue beyond those (0: none). */
  handOut: number;
  /** Wallet-days of one client, checked and handed out together. */
  perClient: number;
}

export class DayShare {
  readonly chosen: DueDay[] = [];
  readonly handed: DueDay[] = [];
  /** Days offered and not taken: over their client's share, or offered once the pass was full. */
  readonly left: DueDay[] = [];
  /** The last day whose books changed that was offered before the pass was full: the next pass starts after it. */
  lastChanged: WalletDay | null = null;
  private readonly seen = new Set<string>();
  private readonly perClient = new Map<string, number>();

  constructor(private readonly budget: ShareBudget) {}

  /** Whether the pass has taken all it may. */
  get full(): boolean {
    return this.chosen.length + this.handed.length >= this.budget.days + this.budget.handOut;
  }

  /** Whether `day` was offered already. */
  has(day: WalletDay): boolean {
    return this.seen.has(dayKey(day));
  }

  /** Takes `day` if the pass and its client have room, else leaves it (a day offered twice counts once). */
  offer(day: DueDay): void {
    const key = dayKey(day);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.full) {
      this.left.push(day);
      return;
    }
    if (day.why === "changed") this.lastChanged = { clientId: day.clientId, currency: day.currency, day: day.day };
    const taken = this.perClient.get(day.clientId) ?? 0;
    if (taken >= this.budget.perClient) {
      this.left.push(day);
      return;
    }
    this.perClient.set(day.clientId, taken + 1);
    (this.chosen.length < this.budget.days ? this.chosen : this.handed).push(day);
  }

  /** The clients whose days were left, with how many, the most first. */
  behind(): [string, number][] {
    const counts = new Map<string, number>();
    for (const day of this.left) counts.set(day.clientId, (counts.get(day.clientId) ?? 0) + 1);
    return [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  }
}

/**
 * The alert of a pass that left days to the next: how many it knew of and whose (the clients with the most
 * first), and whether it stopped at its budget with more not read.
 */
export function backlogAlert(left: number, behind: readonly [string, number][], stoppedAt: number | null): string {
  const clients = behind
    .slice(0, 5)
    .map(([client, count]) => `${client} ${count}`)
    .join(", ");
  const named = behind.length === 0 ? "" : ` (clients ${clients}${behind.length > 5 ? ", …" : ""})`;
  return stoppedAt === null
    ? `${left} wallet-days due were left to the next pass${named}`
    : `the pass took its budget of ${stoppedAt} wallet-days; the days due past it were left to the next pass${named}`;
}
