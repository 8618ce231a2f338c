/** Examples of the account's events (docs, the document's webhooks, GET /events). */
import type { DeliveryFailedEvent, WalletFundedEvent, WalletLowEvent } from "./events";

export const EXAMPLE_WALLET_FUNDED: WalletFundedEvent = {
  id: "evt_9b2c4e6f8a0b4c1d8e2f3a4b5c6d7e8f",
  type: "wallet.funded",
  createdAt: 1767225600000,
  data: { currency: "EUR", amount: "500", balance: "1250.5", note: "Invoice 2026-001 paid" },
  livemode: true,
};

export const EXAMPLE_WALLET_LOW: WalletLowEvent = {
  id: "evt_1a2b3c4d5e6f4a7b8c9d0e1f2a3b4c5d",
  type: "wallet.low",
  createdAt: 1767229200000,
  data: { currency: "EUR", balance: "95", threshold: "100" },
  livemode: true,
};

export const EXAMPLE_DELIVERY_FAILED: DeliveryFailedEvent = {
  id: "evt_df_6c1e0b7a5d2f4e3a9b8c7d6e5f4a3b2c",
  type: "delivery.failed",
  createdAt: 1767232800000,
  data: {
    eventId: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
    eventType: "order.confirmed",
    endpointId: "we_7d3f9a1c2b4e4d6f8a0b1c2d3e4f5a6b",
    url: "https://example.com/hooks",
    attempts: 8,
    error: "HTTP 503",
  },
  livemode: true,
};
