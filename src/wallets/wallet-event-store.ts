/**
 * The wallet's low-balance alert and its events' outbox, in the wallet's SQLite (the tables of migration 9
 * of wallet-store.ts): the storage of wallet-events.ts.
 */
import type { BookEvent } from "../books/event-rules";
import type { BalanceAlert } from "./wallet-alert-rules";

/** The wallet's events as webhooks define them (src/webhooks/events.ts checks the shapes agree). */
export interface WalletFunded {
  id: string;
  type: "wallet.funded";
  createdAt: number;
  data: { currency: string; amount: string; balance: string; note: string | null };
  livemode: boolean;
}
export interface WalletLow {
  id: string;
  type: "wallet.low";
  createdAt: number;
  data: { currency: string; balance: string; threshold: string };
  livemode: boolean;
}

type AlertRow = {
  client_id: string;
  currency: string;
  threshold: string;
  armed: number;
  fired_at: number | null;
};

export class WalletEventStore {
  constructor(private readonly sql: SqlStorage) {}

  alert(): BalanceAlert | null {
    const row = this.sql.exec<AlertRow>(`SELECT * FROM balance_alert WHERE id = 1`).toArray()[0];
    if (row === undefined) return null;
    const { client_id: clientId, currency, threshold, armed, fired_at: firedAt } = row;
    return { clientId, currency, threshold, armed: armed === 1, firedAt };
  }

  writeAlert(alert: BalanceAlert | null): void {
    if (alert === null) {
      this.sql.exec(`DELETE FROM balance_alert WHERE id = 1`);
      return;
    }
    this.sql.exec(
      `INSERT INTO balance_alert (id, client_id, currency, threshold, armed, fired_at) VALUES (1, ?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (id) DO UPDATE SET client_id = excluded.client_id, currency = excluded.currency,
         threshold = excluded.threshold, armed = excluded.armed, fired_at = excluded.fired_at`,
      alert.clientId,
      alert.currency,
      alert.threshold,
      alert.armed ? 1 : 0,
      alert.firedAt,
    );
  }

  enqueue(clientId: string, event: WalletFunded | WalletLow): void {
    this.sql.exec(
      `INSERT INTO event_outbox (event_id, client_id, payload) VALUES (?1, ?2, ?3)`,
      event.id,
      clientId,
      JSON.stringify(event),
    );
  }

  waiting(limit: number): { clientId: string; event: BookEvent }[] {
    return this.sql
      .exec<{ client_id: string; payload: string }>(`SELECT client_id, payload FROM event_outbox LIMIT ?1`, limit)
      .toArray()
      .map((row) => ({ clientId: row.client_id, event: JSON.parse(row.payload) as BookEvent }));
  }

  remove(eventIds: readonly string[]): void {
    for (const id of eventIds) this.sql.exec(`DELETE FROM event_outbox WHERE event_id = ?1`, id);
  }
}
